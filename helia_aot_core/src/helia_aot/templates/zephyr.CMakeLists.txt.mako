# Zephyr build of helia-aot module ${layout.name_comment} (${layout.model_comment}, plan ${layout.plan_hash}).
# Built when CONFIG_${symbol}=y (or CONFIG_${legacy}=y). Paths are relative to this file's folder.
if(CONFIG_${symbol} OR CONFIG_${legacy})
  # One prefix per image: every C symbol of this module starts with ${layout.prefix}_, so a second
  # module with the same prefix would collide at link time (or one model would silently never run).
  # Convert each model with its own module.prefix.
  get_property(_helia_aot_prefix_owner GLOBAL PROPERTY HELIA_AOT_PREFIX_${layout.prefix})
  if(_helia_aot_prefix_owner)
    message(FATAL_ERROR "helia-aot: modules '${"${"}_helia_aot_prefix_owner}' and '${layout.target}' both use the C prefix '${layout.prefix}'; one build may hold one module per prefix. Convert one of them again with another --module.prefix.")
  endif()
  set_property(GLOBAL PROPERTY HELIA_AOT_PREFIX_${layout.prefix} "${layout.target}")
  zephyr_library_named(${layout.target})
  zephyr_library_sources(
% for source in layout.sources:
    ../${source}
% endfor
  )
  zephyr_include_directories(../includes-api)
  zephyr_library_include_directories(${" ".join("../" + d for d in layout.existing_include_dirs)})
endif()
