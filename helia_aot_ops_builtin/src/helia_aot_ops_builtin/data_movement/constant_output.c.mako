<%inherit file="_operator.c.mako"/>
/* The output's values, known at conversion time (they depend only on constants). */
static const ${ctype} ${stem}_values[${count}] = {${values}};

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    const int32_t status = ${k}copy_bytes(${dst}, ${stem}_values, (int32_t)sizeof ${stem}_values);
    return status == 0 ? 0 : -(${status_base} + status);
}
