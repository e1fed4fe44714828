/*
 * semihost.c: the newlib system calls of the QEMU targets, built on Arm semihosting, plus the
 * report printed when the core takes an unexpected exception.
 *
 * A semihosting call is BKPT 0xAB with the operation in r0 and a pointer to its argument block
 * in r1; QEMU serves it when started with -semihosting-config enable=on,target=native.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

enum {
    SH_OPEN = 0x01,
    SH_WRITE = 0x05,
    SH_READ = 0x06,
    SH_EXIT = 0x18,
    SH_EXIT_EXTENDED = 0x20
};
/* Reason codes of SYS_EXIT: a normal application exit carries the status with it. */
#define SH_APPLICATION_EXIT 0x20026u
#define SH_RUNTIME_ERROR 0x20023u

static int32_t sh_call(int32_t op, const void *block)
{
    register int32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = block;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* stdin, stdout and stderr are the host console ":tt" opened for read, write and append. */
static int32_t sh_console(int fd)
{
    static int32_t handles[3] = {-1, -1, -1};
    static const uint32_t modes[3] = {0u, 4u, 8u};
    if (fd < 0 || fd > 2) {
        return -1;
    }
    if (handles[fd] < 0) {
        const uint32_t block[3] = {(uint32_t)(uintptr_t)":tt", modes[fd], 3u};
        handles[fd] = sh_call(SH_OPEN, block);
    }
    return handles[fd];
}

void _exit(int status) __attribute__((noreturn));
void _exit(int status)
{
    const uint32_t block[2] = {SH_APPLICATION_EXIT, (uint32_t)status};
    sh_call(SH_EXIT_EXTENDED, block);
    /* A host without SYS_EXIT_EXTENDED can only tell success from failure. */
    sh_call(SH_EXIT, (const void *)(uintptr_t)(status == 0 ? SH_APPLICATION_EXIT : SH_RUNTIME_ERROR));
    for (;;) {
    }
}

int _write(int fd, const char *buf, int len)
{
    const int32_t handle = sh_console(fd);
    if (handle < 0) {
        errno = EBADF;
        return -1;
    }
    const uint32_t block[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)buf, (uint32_t)len};
    return len - (int)sh_call(SH_WRITE, block); /* the call returns the bytes NOT written */
}

int _read(int fd, char *buf, int len)
{
    const int32_t handle = sh_console(fd);
    if (handle < 0) {
        errno = EBADF;
        return -1;
    }
    const uint32_t block[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)buf, (uint32_t)len};
    return len - (int)sh_call(SH_READ, block);
}

int _close(int fd)
{
    (void)fd;
    return 0;
}

/* Reporting the console as a terminal makes newlib line-buffer stdout, so output arrives in
 * order with the plugin's lines and is not lost if the program faults later. */
int _isatty(int fd)
{
    return fd >= 0 && fd <= 2;
}

int _fstat(int fd, struct stat *st)
{
    (void)fd;
    memset(st, 0, sizeof(*st));
    st->st_mode = S_IFCHR;
    return 0;
}

int _lseek(int fd, int offset, int whence)
{
    (void)fd;
    (void)offset;
    (void)whence;
    return 0;
}

int _getpid(void)
{
    return 1;
}

int _kill(int pid, int sig)
{
    (void)pid;
    _exit(128 + sig); /* abort() ends here: report it like a signal death */
}

/* The heap runs from the end of the linked RAM data up to the fault stack (sections.ld). */
extern char __heap_start[];
extern char __heap_limit[];

void *_sbrk(ptrdiff_t increment)
{
    static char *brk = __heap_start;
    char *const previous = brk;
    if (increment > __heap_limit - brk || increment < __heap_start - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    brk += increment;
    return previous;
}

/* ---- exception report ------------------------------------------------------------------- */

static void report_text(const char *text)
{
    _write(1, text, (int)strlen(text));
}

static void report_hex(const char *label, uint32_t value)
{
    char digits[11] = "0x";
    for (int i = 0; i < 8; ++i) {
        digits[2 + i] = "0123456789abcdef"[(value >> (28 - 4 * i)) & 0xfu];
    }
    digits[10] = '\0';
    report_text(label);
    report_text(digits);
}

static void report_decimal(uint32_t value)
{
    char digits[11];
    int at = 10;
    digits[at] = '\0';
    do {
        digits[--at] = (char)('0' + value % 10u);
        value /= 10u;
    } while (value != 0u);
    report_text(&digits[at]);
}

static const char *exception_name(uint32_t number)
{
    static const char *const names[16] = {
        "thread", "reset", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault",
        "SecureFault", "reserved", "reserved", "reserved", "SVCall", "DebugMonitor",
        "reserved", "PendSV", "SysTick",
    };
    return number < 16u ? names[number] : "interrupt";
}

/* Configurable Fault Status Register bits worth naming in a report. */
static const char *cfsr_bit_name(int bit)
{
    switch (bit) {
    case 0: return "IACCVIOL";
    case 1: return "DACCVIOL";
    case 3: return "MUNSTKERR";
    case 4: return "MSTKERR";
    case 8: return "IBUSERR";
    case 9: return "PRECISERR";
    case 10: return "IMPRECISERR";
    case 11: return "UNSTKERR";
    case 12: return "STKERR";
    case 16: return "UNDEFINSTR";
    case 17: return "INVSTATE";
    case 18: return "INVPC";
    case 19: return "NOCP";
    case 20: return "STKOF";
    case 24: return "UNALIGNED";
    case 25: return "DIVBYZERO";
    default: return NULL;
    }
}

extern const char __stack_limit[];
extern const char __fault_stack_top[];

/* Called by harness_exception (startup.S) on the fault stack. Prints one line that starts
 * with "[harness] FAULT" and ends the run with status 128 + exception number. */
void harness_fault_report(const uint32_t *frame, uint32_t exc_return) __attribute__((noreturn, used));
void harness_fault_report(const uint32_t *frame, uint32_t exc_return)
{
    volatile const uint32_t *const scb = (volatile const uint32_t *)0xE000ED00u;
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    ipsr &= 0x1ffu;
    const uint32_t cfsr = scb[0x28 / 4];

    report_text("\n[harness] FAULT: exception ");
    report_decimal(ipsr);
    report_text(" (");
    report_text(exception_name(ipsr));
    report_text(")");
    /* A failed exception entry (stack overflow on the M4) leaves no frame to read. */
    if ((const char *)frame >= __stack_limit && (const char *)(frame + 8) <= __fault_stack_top) {
        report_hex(" pc=", frame[6]);
        report_hex(" lr=", frame[5]);
    } else {
        report_hex(" sp=", (uint32_t)(uintptr_t)frame);
    }
    report_hex(" exc_return=", exc_return);
    report_hex(" CFSR=", cfsr);
    report_hex(" HFSR=", scb[0x2C / 4]);
    report_hex(" MMFAR=", scb[0x34 / 4]);
    report_hex(" BFAR=", scb[0x38 / 4]);
    for (int bit = 0; bit < 32; ++bit) {
        const char *name = cfsr_bit_name(bit);
        if (((cfsr >> bit) & 1u) != 0u && name != NULL) {
            report_text(" ");
            report_text(name);
        }
    }
    report_text("\n");
    _exit(128 + (int)ipsr);
}
