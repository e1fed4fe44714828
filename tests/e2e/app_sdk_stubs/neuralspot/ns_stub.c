/* Definitions for the stand-in neuralSPOT headers: each does nothing, so the app links. */
#include "ns_ambiqsuite_harness.h"
#include "ns_core.h"
#include "ns_peripherals_power.h"

const ns_core_api_t ns_core_V1_0_0 = {1u};
const ns_power_config_t ns_development_default = {0u};

uint32_t ns_core_init(ns_core_config_t *c)
{
    return c->api == &ns_core_V1_0_0 ? 0u : 1u;
}

uint32_t ns_power_config(const ns_power_config_t *config)
{
    return config->mode;
}

void ns_itm_printf_enable(void)
{
}

void ns_lp_printf(const char *format, ...)
{
    (void)format;
}
