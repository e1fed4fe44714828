<%inherit file="_operator.c.mako"/>
<%def name="copy_all(copies, indent)">\
% for c in copies:
${indent}status = ${k}copy_bytes(${c.dst}, ${c.src}, ${c.nbytes});
${indent}if (status != 0) {
${indent}    return -(${status_base} + status);
${indent}}
% endfor
</%def>\
/* Defined in ${prefix}_model.c: runs one region's operators (with the observer callback). */
int32_t ${prefix}_run_range(${prefix}_model_context_t *ctx, int32_t first, int32_t end);

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    int32_t status = 0;
% if kind == "IF":
    /* LiteRT IF: the condition picks one branch; operands are copied in, results copied out. */
    if (*(const bool *)${cond}) {
${copy_all(branches[0]["copy_in"], "        ")}\
        status = ${prefix}_run_range(ctx, ${branches[0]["first"]}, ${branches[0]["end"]});
        if (status != 0) {
            return status;
        }
${copy_all(branches[0]["copy_out"], "        ")}\
    } else {
${copy_all(branches[1]["copy_in"], "        ")}\
        status = ${prefix}_run_range(ctx, ${branches[1]["first"]}, ${branches[1]["end"]});
        if (status != 0) {
            return status;
        }
${copy_all(branches[1]["copy_out"], "        ")}\
    }
% else:
    /* LiteRT WHILE: the loop values live in the outputs, starting from the inputs. */
${copy_all(start, "    ")}\
    for (;;) {
${copy_all(cond_in, "        ")}\
        status = ${prefix}_run_range(ctx, ${cond_range[0]}, ${cond_range[1]});
        if (status != 0) {
            return status;
        }
        if (!*(const bool *)${cond}) {
            break;
        }
${copy_all(body_in, "        ")}\
        status = ${prefix}_run_range(ctx, ${body_range[0]}, ${body_range[1]});
        if (status != 0) {
            return status;
        }
${copy_all(body_out, "        ")}\
    }
% endif
    return status;
}
