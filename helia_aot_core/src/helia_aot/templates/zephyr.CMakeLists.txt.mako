# Zephyr build of helia-aot module ${layout.name_comment} (${layout.model_comment}, plan ${layout.plan_hash}).
# Built when CONFIG_${symbol}=y (or CONFIG_${legacy}=y). Paths are relative to this file's folder.
if(CONFIG_${symbol} OR CONFIG_${legacy})
  zephyr_library_named(${layout.target})
  zephyr_library_sources(
% for source in layout.sources:
    ../${source}
% endfor
  )
  zephyr_include_directories(../includes-api)
  zephyr_library_include_directories(${" ".join("../" + d for d in layout.existing_include_dirs)})
endif()
