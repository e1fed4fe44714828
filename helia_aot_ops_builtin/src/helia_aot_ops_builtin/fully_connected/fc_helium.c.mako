<%inherit file="_operator.c.mako"/>\
<% K = k.upper() %>\
#include "${k}isa.h"

#if ${K}HAVE_MVE && defined(__GNUC__) && !defined(__clang__)
/* Per block of eight units, in lane order: the folded biases of the even and the odd units,
 * then their multipliers. */
static const int32_t ${stem}_blocks[${len(helium["table"])}] = {
    ${",\n    ".join(", ".join(helium["table"][i:i + 8]) for i in range(0, len(helium["table"]), 8))}
};

/* This layer's Helium loop (helia_aot_ops_builtin.fully_connected.fc_helium): LiteRT's
 * reference int8 FullyConnected through the integer requantization the converter proved equal
 * to its double rounding, every shape, shift and offset an immediate. */
static void ${stem}_row(const int8_t *x, const int8_t *w, int8_t *out)
{
    const void *const a[4] = {x, w, out, ${stem}_blocks};
    __asm__ volatile(
% for line in helium["asm"]:
        ${line}
% endfor
        :
        : [a] "r"(a)
        : "r0", "r1", "r2", "r3", "r12", "lr", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7",
          "cc", "memory");
}

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
% for src, dst, count in int4_unpacks:
    (void)${k}unpack_s4(${src}, ${dst}, ${count});
% endfor
    const int8_t *x = ${helium["input"]};
    const int8_t *w = ${helium["weights"]};
    int8_t *out = ${helium["output"]};
% if helium["batches"] == 1:
    ${stem}_row(x, w, out);
% else:
    for (int32_t b = 0; b < ${helium["batches"]}; ++b) {
        ${stem}_row(x + b * ${helium["depth"]}, w, out + b * ${helium["units"]});
    }
% endif
    (void)ctx;
    return 0;
}
#else
% for table in tables:
/* ${table.comment} */
static const ${table.ctype} ${stem}_${table.name}[${len(table.values)}] = {
    ${",\n    ".join(", ".join(table.values[i:i + 4]) for i in range(0, len(table.values), 4))}
};

% endfor
int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
% for src, dst, count in int4_unpacks:
    (void)${k}unpack_s4(${src}, ${dst}, ${count});
% endfor
    const ${k}${params_type} params = {
${"".join([f"        .{name} = {value},\n" for name, value in fields])}\
    };
    const int32_t status = ${k}${function}(&params, ${",\n        ".join(args)});
    return status == 0 ? 0 : -(${status_base} + status);
}
#endif
