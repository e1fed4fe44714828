/* Stand-in for neuralSPOT's ns_peripherals_power.h: a power configuration and its call. */
#ifndef NS_PERIPHERALS_POWER_H
#define NS_PERIPHERALS_POWER_H

#include <stdint.h>

typedef struct {
    uint32_t mode;
} ns_power_config_t;

extern const ns_power_config_t ns_development_default;

uint32_t ns_power_config(const ns_power_config_t *config);

#endif /* NS_PERIPHERALS_POWER_H */
