/* Definition for the stand-in <zephyr/sys/printk.h>: does nothing, so the app links. */
#include <zephyr/sys/printk.h>

void printk(const char *fmt, ...)
{
    (void)fmt;
}
