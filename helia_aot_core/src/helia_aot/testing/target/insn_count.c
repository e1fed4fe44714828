/*
 * insn_count.c: QEMU TCG plugin that counts the guest instructions executed between the two
 * marker functions of harness.h.
 *
 *   qemu-system-arm ... -plugin insn_count.so,begin=0xADDR,end=0xADDR[,out=FILE]
 *
 * begin / end are the addresses of harness_region_begin and harness_region_end (the Thumb bit
 * is ignored). A region's count is the instructions from the begin marker's BX LR up to, not
 * including, the end marker, minus the two marker instructions themselves (that BX LR and the
 * BL calling harness_region_end), so an empty region counts 0.
 *
 * With out=FILE the plugin writes, when QEMU exits, "region=<count>" per region in order and
 * "total=<instructions of the whole run>"; without it each region is printed as
 * "[harness] region <n>: <count> instructions" on QEMU's stdout, in order with the program's
 * semihosted output.
 *
 * How: every translated block gets an execution callback adding its instruction count to a
 * running total, and the marker instructions get a callback of their own that subtracts what
 * their block has not executed yet. That is exact as long as blocks run to the end, which holds
 * for bare-metal code without interrupts (a fault ends the run anyway).
 *
 * Built with the host compiler (cc -shared -fPIC); the few plugin API declarations it needs are
 * written out below, so no QEMU headers are required. They exist unchanged in plugin API
 * versions 1 (QEMU 4.2 to 8.x, tested with 7.2) through 3; INSN_COUNT_API selects the version
 * the plugin declares (QEMU 9 and later refuse version 1).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

#define EXPORTED __attribute__((visibility("default")))

#ifndef INSN_COUNT_API
#define INSN_COUNT_API 1
#endif
EXPORTED int qemu_plugin_version = INSN_COUNT_API;

#define MARKER_INSNS 2u
#define NO_ADDRESS UINT64_MAX

/* The M-profile boards have one vCPU, so plain globals need no locking. */
static uint64_t total;
static uint64_t begin_address = NO_ADDRESS;
static uint64_t end_address = NO_ADDRESS;
static const char *out_path;

static bool in_region;
static uint64_t region_start;
static uint64_t *regions;
static size_t n_regions;
static size_t regions_capacity;
static uint64_t stray_markers; /* a begin inside a region, or an end outside one */

static void on_block(unsigned int vcpu, void *n_insns)
{
    (void)vcpu;
    total += (uint64_t)(uintptr_t)n_insns;
}

/* "not_yet" is the number of instructions of the block from the marker to the block's end,
 * which on_block has already added. */
static void on_begin(unsigned int vcpu, void *not_yet)
{
    (void)vcpu;
    if (in_region) {
        stray_markers++;
    }
    in_region = true;
    region_start = total - (uint64_t)(uintptr_t)not_yet;
}

static void record(uint64_t count)
{
    if (n_regions == regions_capacity) {
        const size_t capacity = regions_capacity ? 2 * regions_capacity : 64;
        uint64_t *grown = realloc(regions, capacity * sizeof(*grown));
        if (grown == NULL) {
            stray_markers++;
            return;
        }
        regions = grown;
        regions_capacity = capacity;
    }
    regions[n_regions++] = count;
    if (out_path == NULL) {
        char line[96];
        const int len = snprintf(line, sizeof(line), "[harness] region %zu: %" PRIu64 " instructions\n",
                                 n_regions - 1, count);
        if (len > 0 && write(1, line, (size_t)len) < 0) {
            stray_markers++;
        }
    }
}

static void on_end(unsigned int vcpu, void *not_yet)
{
    (void)vcpu;
    if (!in_region) {
        stray_markers++;
        return;
    }
    in_region = false;
    const uint64_t raw = total - (uint64_t)(uintptr_t)not_yet - region_start;
    record(raw >= MARKER_INSNS ? raw - MARKER_INSNS : 0);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    const size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const uint64_t address = qemu_plugin_insn_vaddr(insn) & ~(uint64_t)1;
        void *const not_yet = (void *)(uintptr_t)(n - i);
        if (address == begin_address) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_begin, QEMU_PLUGIN_CB_NO_REGS, not_yet);
        } else if (address == end_address) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_end, QEMU_PLUGIN_CB_NO_REGS, not_yet);
        }
    }
}

static void on_qemu_exit(qemu_plugin_id_t id, void *unused)
{
    (void)id;
    (void)unused;
    if (out_path == NULL) {
        return;
    }
    FILE *out = fopen(out_path, "w");
    if (out == NULL) {
        return;
    }
    for (size_t i = 0; i < n_regions; i++) {
        fprintf(out, "region=%" PRIu64 "\n", regions[i]);
    }
    fprintf(out, "open_region=%d\n", in_region ? 1 : 0);
    fprintf(out, "stray_markers=%" PRIu64 "\n", stray_markers);
    fprintf(out, "total=%" PRIu64 "\n", total);
    fclose(out);
}

static bool parse_address(const char *text, uint64_t *value)
{
    char *rest;
    *value = strtoull(text, &rest, 0);
    return *text != '\0' && *rest == '\0';
}

EXPORTED int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        uint64_t value;
        if (strncmp(arg, "begin=", 6) == 0 && parse_address(arg + 6, &value)) {
            begin_address = value & ~(uint64_t)1;
        } else if (strncmp(arg, "end=", 4) == 0 && parse_address(arg + 4, &value)) {
            end_address = value & ~(uint64_t)1;
        } else if (strncmp(arg, "out=", 4) == 0 && arg[4] != '\0') {
            out_path = arg + 4;
        } else {
            fprintf(stderr, "insn_count: unknown argument '%s'\n", arg);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
