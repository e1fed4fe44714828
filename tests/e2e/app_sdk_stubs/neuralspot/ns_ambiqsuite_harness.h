/* Stand-in for neuralSPOT's ns_ambiqsuite_harness.h: the print calls. */
#ifndef NS_AMBIQSUITE_HARNESS_H
#define NS_AMBIQSUITE_HARNESS_H

void ns_itm_printf_enable(void);
void ns_lp_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif /* NS_AMBIQSUITE_HARNESS_H */
