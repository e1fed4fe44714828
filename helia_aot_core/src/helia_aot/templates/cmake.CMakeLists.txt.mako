<% t = layout.target %>\
# ${layout.name_comment}: helia-aot inference module of ${layout.model_comment} for ${layout.platform_name}
# (plan ${layout.plan_hash}). Defines the static library ${t}, also reachable as helia_aot::${t}.
# Paths are relative to this file's folder.
cmake_minimum_required(VERSION 3.13)
project(${t} LANGUAGES C)

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
