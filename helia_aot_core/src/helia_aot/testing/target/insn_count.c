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
 * With model=FILE the plugin also estimates cycles (helia_aot.testing.cycles writes FILE and
 * documents the model, docs/cycles.md the rules): FILE holds the core's rules ("param NAME VALUE"),
 * the wait states of each memory range ("mem LOW HIGH WAITS [FILL]", FILL > 0: the range is cached
 * by the data cache the dcache_* params describe, and a miss costs FILL) and one line per instruction of the
 * program ("insn ADDRESS FLAGS PIPE BEATS LATENCY DST SRC ADDR", register sets as bit masks),
 * classified from the timing table of the core. Every executed instruction then runs through a
 * small in-order scoreboard, every memory access adds the wait states of the range it touches, and
 * each region is written as "cycles=<cycles> issue=.. dependency=.. branch=.. memory=..
 * store_load=.. unknown=.." after its "region=" line. An executed instruction FILE does not list
 * counts one cycle and is reported as "unknown_address=0x..." (an error to the caller in tests).
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
typedef uint32_t qemu_plugin_meminfo_t;
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
                                          void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw, void *userdata);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
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
static uint64_t stray_markers; /* a begin inside a region, or an end outside one */

/* ---- cycle model (model=FILE) ---------------------------------------------------------------- */

enum {
    F_LOAD = 1,
    F_STORE = 2,
    F_BRANCH = 4,
    F_VECTOR = 8,
    F_LOL = 16,
    F_DUAL = 32,
    F_MULTI = 64,
    F_UNKNOWN = 128,
    F_DI = 256, /* may be the second of a dual-issued pair (M55: MOV, ADD/SUB imm, UXT/SXT, NOP, IT, B) */
    F_LSTART = 512, /* DLS, DLSTP, WLS, WLSTP: sets a low-overhead loop up */
};
enum {
    P_TAKEN,
    P_LOL,
    P_LS_PIPELINE,
    P_BEAT_OVERLAP,
    P_STORE_LOAD,
    P_DUAL_ISSUE,
    P_DCACHE_LINE,
    P_DCACHE_SETS,
    P_DCACHE_WAYS,
    P_STORE_DATA_ADVANCE,
    P_LOL_FOLDED,
    N_PARAMS
};
static const char *const param_names[N_PARAMS] = {
    "taken_branch", "lol_branch",   "ls_pipeline",  "beat_overlap", "store_load_stall",
    "dual_issue",   "dcache_line",  "dcache_sets",  "dcache_ways",
    "store_data_advance", "lol_folded",
};
enum { S_ISSUE, S_DEPENDENCY, S_BRANCH, S_MEMORY, S_STORE_LOAD, S_UNKNOWN, N_PARTS };
static const char *const part_names[N_PARTS] = {
    "issue", "dependency", "branch", "memory", "store_load", "unknown",
};
#define N_REGS 64
#define FLAGS_MASK ((uint64_t)1 << 24) /* the APSR flags: both of a pair may set them */

struct timing {
    uint64_t address;
    uint32_t flags, pipe, beats, latency, size;
    uint64_t dst, src, addr; /* register sets: bit n = r0..r15, then q0..q7 at 16..23 */
};
struct mem_range {
    uint64_t low, high;
    uint32_t waits;
    uint32_t fill; /* > 0: cached through the data cache; a miss costs this line fill, a hit nothing */
};

static bool modelling;
static uint64_t params[N_PARAMS];
static struct timing *timings; /* sorted by address (the file lists them so) */
static size_t n_timings;
static struct mem_range *ranges;
static size_t n_ranges;
static struct timing **unknowns; /* executed instructions the file does not list */
static size_t n_unknowns;

/* The data cache (dcache_* params; none when dcache_sets is 0): set-associative, LRU, holding
 * line numbers of the cached ranges. tags[set * ways + way], ages alike (0 = empty). */
static uint64_t *cache_tags;
static uint64_t *cache_ages;
static uint64_t cache_clock;

static uint64_t cycles;
static uint64_t parts[N_PARTS];
static uint64_t reg_ready[N_REGS];
static const struct timing *prev;
static uint64_t prev_start;
static bool prev_paired;
static uint64_t lol_seen = UINT64_MAX; /* the LE executed since the latest loop start */
static bool folded;                    /* the latest instruction was an LE the loop cache folded away */
static uint64_t last_charge; /* every cycle charged to the latest instruction so far */
static uint64_t insn_seq, mem_seq, mem_chunk;
static bool begin_pending;
static uint64_t start_cycles, start_parts[N_PARTS];

struct region {
    uint64_t instructions, cycles, parts[N_PARTS];
};
static struct region *regions;
static size_t n_regions;
static size_t regions_capacity;

static void charge(int part, uint64_t n)
{
    cycles += n;
    parts[part] += n;
    last_charge += n;
}

static uint64_t ready_of(uint64_t registers)
{
    uint64_t ready = 0;
    for (int r = 0; registers != 0 && r < N_REGS; r++, registers >>= 1) {
        if ((registers & 1) && reg_ready[r] > ready) {
            ready = reg_ready[r];
        }
    }
    return ready;
}

/* One beat of overlap with the previous instruction, when a rule of the core allows it. */
static uint64_t overlap_with_prev(const struct timing *t, bool *paired)
{
    *paired = false;
    if (prev == NULL || cycles == 0) {
        return 0;
    }
    const uint32_t mem = F_LOAD | F_STORE;
    if (params[P_BEAT_OVERLAP] && (t->flags & F_VECTOR) && (prev->flags & F_VECTOR) && t->pipe != prev->pipe &&
        prev->beats >= 2) {
        return 1;
    }
    if (params[P_LS_PIPELINE] && (t->flags & mem) && (prev->flags & mem) && !(t->flags & (F_MULTI | F_VECTOR)) &&
        !(prev->flags & (F_MULTI | F_VECTOR)) && !(t->addr & prev->dst) && t->beats >= 2) {
        return 1;
    }
    /* a pair is two neighbouring 16-bit instructions, never across a taken branch */
    const bool sequential = t->address == prev->address + prev->size;
    const bool pair = sequential && (((prev->flags & F_DUAL) && (t->flags & F_DI)) ||
                                     ((prev->flags & F_DI) && (t->flags & F_DUAL)));
    if (params[P_DUAL_ISSUE] && !prev_paired && pair &&
        !((t->src | t->addr) & prev->dst) && !(t->dst & prev->dst & ~FLAGS_MASK)) {
        *paired = true;
        return 1;
    }
    return 0;
}

static void on_insn(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    const struct timing *t = udata;
    if (folded) {
        folded = false; /* the folded LE's branch back costs nothing, and the body follows its end */
    } else if (prev != NULL && (prev->flags & F_BRANCH) && t->address != prev->address + prev->size) {
        charge(S_BRANCH, (prev->flags & F_LOL) ? params[P_LOL] : params[P_TAKEN]); /* the branch's own */
    }
    if (begin_pending && t->address != begin_address) { /* the first instruction after the marker */
        begin_pending = false;
        start_cycles = cycles;
        memcpy(start_parts, parts, sizeof(parts));
    }
    last_charge = 0;
    insn_seq++;
    if (t->flags & F_LSTART) {
        lol_seen = UINT64_MAX;
    }
    if ((t->flags & F_LOL) && params[P_LOL_FOLDED]) {
        if (lol_seen == t->address) { /* after its first pass the loop cache runs the LE for free */
            folded = true;
            return;
        }
        lol_seen = t->address;
    }
    if (t->flags & F_UNKNOWN) {
        charge(S_UNKNOWN, 1);
        prev = t;
        prev_start = cycles - 1;
        prev_paired = false;
        return;
    }
    bool paired;
    const uint64_t overlap = overlap_with_prev(t, &paired);
    uint64_t store_load = 0;
    if (prev != NULL && (t->flags & F_VECTOR) && (t->flags & F_LOAD) && (prev->flags & F_VECTOR) &&
        (prev->flags & F_STORE)) {
        store_load = params[P_STORE_LOAD];
    }
    const uint64_t earliest = cycles - overlap + store_load;
    uint64_t ready = ready_of(t->src | t->addr);
    if ((t->flags & F_STORE) && params[P_STORE_DATA_ADVANCE]) {
        /* a store reads the data it writes later than its address registers */
        const uint64_t data = ready_of(t->src & ~t->addr);
        const uint64_t address = ready_of(t->addr);
        const uint64_t late = data > params[P_STORE_DATA_ADVANCE] ? data - params[P_STORE_DATA_ADVANCE] : 0;
        ready = address > late ? address : late;
    }
    const uint64_t begin = ready > earliest ? ready : earliest;
    const uint64_t end = begin + t->beats;
    const uint64_t issue = t->beats - overlap;
    const uint64_t dependency = end - (cycles + store_load + issue);
    charge(S_STORE_LOAD, store_load);
    charge(S_ISSUE, issue);
    charge(S_DEPENDENCY, dependency);
    uint64_t dst = t->dst;
    for (int r = 0; dst != 0 && r < N_REGS; r++, dst >>= 1) {
        if (dst & 1) {
            reg_ready[r] = begin + t->latency;
        }
    }
    prev = t;
    prev_start = begin;
    prev_paired = paired;
}

/* True when the line holding vaddr is in the data cache; a miss brings it in (LRU victim). */
static bool cache_hit(uint64_t vaddr)
{
    const uint64_t line = vaddr / params[P_DCACHE_LINE];
    const uint64_t ways = params[P_DCACHE_WAYS];
    uint64_t *tags = &cache_tags[(line % params[P_DCACHE_SETS]) * ways];
    uint64_t *ages = &cache_ages[(line % params[P_DCACHE_SETS]) * ways];
    uint64_t victim = 0;
    cache_clock++;
    for (uint64_t w = 0; w < ways; w++) {
        if (ages[w] != 0 && tags[w] == line) {
            ages[w] = cache_clock;
            return true;
        }
        if (ages[w] < ages[victim]) {
            victim = w;
        }
    }
    tags[victim] = line;
    ages[victim] = cache_clock;
    return false;
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
    (void)vcpu;
    (void)info;
    const struct timing *t = udata;
    if (t->flags & F_VECTOR) {
        /* QEMU splits a vector access per element; the core moves it in 64-bit beats, so the
         * wait states count once per 8-byte chunk an instruction touches */
        const uint64_t chunk = vaddr >> 3;
        if (mem_seq == insn_seq && chunk == mem_chunk) {
            return;
        }
        mem_chunk = chunk;
    }
    mem_seq = insn_seq;
    for (size_t i = 0; i < n_ranges; i++) {
        if (vaddr >= ranges[i].low && vaddr < ranges[i].high) {
            if (ranges[i].fill > 0 && cache_tags != NULL) {
                if (!cache_hit(vaddr)) {
                    charge(S_MEMORY, ranges[i].fill);
                }
                return;
            }
            charge(S_MEMORY, ranges[i].waits);
            return;
        }
    }
}

static struct timing *timing_of(uint64_t address, uint32_t size)
{
    size_t lo = 0, hi = n_timings;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (timings[mid].address < address) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo < n_timings && timings[lo].address == address) {
        return &timings[lo];
    }
    for (size_t i = 0; i < n_unknowns; i++) {
        if (unknowns[i]->address == address) {
            return unknowns[i];
        }
    }
    struct timing *unknown = calloc(1, sizeof(*unknown));
    struct timing **grown = realloc(unknowns, (n_unknowns + 1) * sizeof(*grown));
    if (unknown == NULL || grown == NULL) {
        free(unknown);
        return NULL;
    }
    unknowns = grown;
    unknown->address = address;
    unknown->size = size;
    unknown->flags = F_UNKNOWN;
    unknown->beats = 1;
    unknown->latency = 1;
    unknowns[n_unknowns++] = unknown;
    return unknown;
}

static bool load_model(const char *path)
{
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        fprintf(stderr, "insn_count: cannot read model file '%s'\n", path);
        return false;
    }
    char line[512];
    size_t timings_capacity = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof(line), in) != NULL) {
        char name[64];
        unsigned long long a, b, c, d, e, f, g, h;
        unsigned int flags, pipe, beats, latency, size;
        if (strncmp(line, "insn ", 5) == 0) {
            if (sscanf(line + 5, "%llx %u %x %u %u %u %llx %llx %llx", &a, &size, &flags, &pipe, &beats, &latency,
                       &f, &g, &h) != 9) {
                ok = false;
                break;
            }
            if (n_timings == timings_capacity) {
                timings_capacity = timings_capacity ? 2 * timings_capacity : 4096;
                struct timing *grown = realloc(timings, timings_capacity * sizeof(*grown));
                if (grown == NULL) {
                    ok = false;
                    break;
                }
                timings = grown;
            }
            timings[n_timings++] = (struct timing){a, flags, pipe, beats, latency, size, f, g, h};
        } else if (strncmp(line, "mem ", 4) == 0) {
            e = 0;
            if (sscanf(line + 4, "%llx %llx %llu %llu", &a, &b, &c, &e) < 3) {
                ok = false;
                break;
            }
            struct mem_range *grown = realloc(ranges, (n_ranges + 1) * sizeof(*grown));
            if (grown == NULL) {
                ok = false;
                break;
            }
            ranges = grown;
            ranges[n_ranges++] = (struct mem_range){a, b, (uint32_t)c, (uint32_t)e};
        } else if (strncmp(line, "param ", 6) == 0) {
            if (sscanf(line + 6, "%63s %llu", name, &d) != 2) {
                ok = false;
                break;
            }
            int found = -1;
            for (int i = 0; i < N_PARAMS; i++) {
                if (strcmp(name, param_names[i]) == 0) {
                    found = i;
                }
            }
            if (found < 0) {
                fprintf(stderr, "insn_count: unknown model parameter '%s'\n", name);
                ok = false;
                break;
            }
            params[found] = d;
        } else if (line[0] != '#' && line[0] != '\n') {
            ok = false;
        }
    }
    fclose(in);
    if (ok && params[P_DCACHE_SETS] > 0 && params[P_DCACHE_WAYS] > 0 && params[P_DCACHE_LINE] > 0) {
        cache_tags = calloc(params[P_DCACHE_SETS] * params[P_DCACHE_WAYS], sizeof(*cache_tags));
        cache_ages = calloc(params[P_DCACHE_SETS] * params[P_DCACHE_WAYS], sizeof(*cache_ages));
        ok = cache_tags != NULL && cache_ages != NULL;
    }
    if (!ok) {
        fprintf(stderr, "insn_count: malformed model line: %s", line);
    }
    for (size_t i = 1; ok && i < n_timings; i++) {
        if (timings[i].address <= timings[i - 1].address) {
            fprintf(stderr, "insn_count: model instructions are not sorted by address\n");
            ok = false;
        }
    }
    return ok;
}

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
    begin_pending = modelling; /* the cycles start at the next instruction, after this BX LR's */
}

static void record(uint64_t count, uint64_t region_cycles, const uint64_t *region_parts)
{
    if (n_regions == regions_capacity) {
        const size_t capacity = regions_capacity ? 2 * regions_capacity : 64;
        struct region *grown = realloc(regions, capacity * sizeof(*grown));
        if (grown == NULL) {
            stray_markers++;
            return;
        }
        regions = grown;
        regions_capacity = capacity;
    }
    struct region *r = &regions[n_regions++];
    r->instructions = count;
    r->cycles = region_cycles;
    memcpy(r->parts, region_parts, sizeof(r->parts));
    if (out_path == NULL) {
        char line[128];
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
    /* Runs before this instruction's on_insn: the BL calling the marker is the latest charged. */
    uint64_t region_parts[N_PARTS] = {0};
    uint64_t region_cycles = 0;
    if (modelling) {
        region_cycles = cycles - last_charge - start_cycles;
        for (int i = 0; i < N_PARTS; i++) {
            region_parts[i] = parts[i] - start_parts[i];
        }
        /* the BL's own charge is outside the region: take it back from the parts it went to */
        region_parts[S_ISSUE] -= region_parts[S_ISSUE] >= last_charge ? last_charge : region_parts[S_ISSUE];
    }
    record(raw >= MARKER_INSNS ? raw - MARKER_INSNS : 0, region_cycles, region_parts);
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
        if (modelling) { /* after the marker callbacks: they see the state before this instruction */
            struct timing *t = timing_of(address, (uint32_t)qemu_plugin_insn_size(insn));
            if (t != NULL) {
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, t);
                qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, t);
            }
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
        fprintf(out, "region=%" PRIu64 "\n", regions[i].instructions);
        if (modelling) {
            fprintf(out, "cycles=%" PRIu64, regions[i].cycles);
            for (int p = 0; p < N_PARTS; p++) {
                fprintf(out, " %s=%" PRIu64, part_names[p], regions[i].parts[p]);
            }
            fprintf(out, "\n");
        }
    }
    for (size_t i = 0; i < n_unknowns; i++) {
        fprintf(out, "unknown_address=%#" PRIx64 "\n", unknowns[i]->address);
    }
    if (modelling) {
        fprintf(out, "total_cycles=%" PRIu64 "\n", cycles);
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
        } else if (strncmp(arg, "model=", 6) == 0 && arg[6] != '\0') {
            if (!load_model(arg + 6)) {
                return -1;
            }
            modelling = true;
        } else {
            fprintf(stderr, "insn_count: unknown argument '%s'\n", arg);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
