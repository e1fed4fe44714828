/* Stand-in for neuralSPOT's ns_core.h: the core configuration and its start-up call. */
#ifndef NS_CORE_H
#define NS_CORE_H

#include <stdint.h>

typedef struct {
    uint32_t version;
} ns_core_api_t;

typedef struct {
    const ns_core_api_t *api;
} ns_core_config_t;

extern const ns_core_api_t ns_core_V1_0_0;

uint32_t ns_core_init(ns_core_config_t *c);

#endif /* NS_CORE_H */
