/* Stand-in for Zephyr's <zephyr/kernel.h>: the app's port needs nothing from it. */
#ifndef ZEPHYR_STUB_KERNEL_H
#define ZEPHYR_STUB_KERNEL_H
#endif /* ZEPHYR_STUB_KERNEL_H */
