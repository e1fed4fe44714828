<% t = layout.target %>\
# NSX module ${t}: helia-aot inference module of ${layout.model_comment} for ${layout.platform_name}
# (plan ${layout.plan_hash}). Package ${t}, target nsx::${t}. Paths are relative to this file's folder.

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
set_target_properties(${t} PROPERTIES EXPORT_NAME ${t} C_STANDARD 99 C_STANDARD_REQUIRED ON)
add_library(nsx::${t} ALIAS ${t})

target_include_directories(${t} PUBLIC includes-api)
target_include_directories(${t} PRIVATE ${" ".join(layout.existing_include_dirs)})

# Board-level compiler flags (CPU, FPU, ABI) come from the NSX board target when there is one.
if(DEFINED NSX_BOARD_FLAGS_TARGET AND TARGET "${"${NSX_BOARD_FLAGS_TARGET}"}")
  target_link_libraries(${t} PUBLIC "${"${NSX_BOARD_FLAGS_TARGET}"}")
endif()

find_library(${PREFIX}_LIBM m)
if(${PREFIX}_LIBM)
  target_link_libraries(${t} PUBLIC "${"${"}${PREFIX}_LIBM}")
endif()
<% attributes = t.replace("-", "_").upper() + "_ATTRIBUTES_HEADER" %>\

# An NSX application (heliaPROFILER among them) may set ${attributes} to a header that
# defines the ${PREFIX}_PUT_IN_* placement hooks for its linker script; it is included before every
# source of the module and of its users, ahead of the defaults in ${layout.prefix}_platform.h.
if(DEFINED ${attributes})
  if(NOT EXISTS "${"${"}${attributes}}")
    message(FATAL_ERROR "${t}: ${attributes} names '${"${"}${attributes}}', which does not exist; set it to the placement header's path or leave it unset.")
  endif()
  target_compile_options(${t} PUBLIC "-include${"${"}${attributes}}")
endif()
