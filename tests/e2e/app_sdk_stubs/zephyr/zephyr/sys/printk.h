/* Stand-in for Zephyr's <zephyr/sys/printk.h>. */
#ifndef ZEPHYR_STUB_PRINTK_H
#define ZEPHYR_STUB_PRINTK_H

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ZEPHYR_STUB_PRINTK_H */
