<%inherit file="_operator.c.mako"/>
int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    /* The planner usually gives the output the input's storage; the pointers are then equal and
     * nothing moves. */
    const int32_t status = ${k}copy_bytes(${dst}, ${src}, ${nbytes});
    return status == 0 ? 0 : -(${status_base} + status);
}
