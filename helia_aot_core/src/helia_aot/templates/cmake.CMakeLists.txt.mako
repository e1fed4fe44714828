<% t = layout.target %>\
# ${layout.name_comment}: helia-aot inference module of ${layout.model_comment} for ${layout.platform_name}
# (plan ${layout.plan_hash}). Defines the static library ${t}, also reachable as helia_aot::${t}.
# Paths are relative to this file's folder.
cmake_minimum_required(VERSION 3.13)
project(${t} LANGUAGES C)

# One prefix per image: every C symbol of this module starts with ${layout.prefix}_, so a second
# module with the same prefix would collide at link time (or one model would silently never run).
# Convert each model with its own module.prefix.
get_property(_helia_aot_prefix_owner GLOBAL PROPERTY HELIA_AOT_PREFIX_${layout.prefix})
if(_helia_aot_prefix_owner)
  message(FATAL_ERROR "helia-aot: modules '${"${"}_helia_aot_prefix_owner}' and '${layout.target}' both use the C prefix '${layout.prefix}'; one build may hold one module per prefix. Convert one of them again with another --module.prefix.")
endif()
set_property(GLOBAL PROPERTY HELIA_AOT_PREFIX_${layout.prefix} "${layout.target}")

add_library(${t} STATIC
% for source in layout.sources:
    ${source}
% endfor
)
add_library(helia_aot::${t} ALIAS ${t})
target_include_directories(${t} PUBLIC includes-api)
target_include_directories(${t} PRIVATE ${" ".join(layout.existing_include_dirs)})
set_target_properties(${t} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)

# The kernels call a few <math.h> functions; link libm where the toolchain has one.
find_library(${PREFIX}_LIBM m)
if(${PREFIX}_LIBM)
  target_link_libraries(${t} PUBLIC "${"${"}${PREFIX}_LIBM}")
endif()
