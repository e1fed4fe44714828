<% root = "${" + PREFIX + "_MODULE_DIR}" %>\
# Zephyr build of helia-aot module ${layout.name} (${layout.model_comment}, plan ${layout.plan_hash}).
# Built when CONFIG_${symbol}=y.
if(CONFIG_${symbol})
  get_filename_component(${PREFIX}_MODULE_DIR "${"${CMAKE_CURRENT_LIST_DIR}"}/.." ABSOLUTE)
  zephyr_library_named(${layout.target})
  zephyr_library_sources(
% for source in layout.sources:
    "${root}/${source}"
% endfor
  )
  zephyr_include_directories("${root}/includes-api")
  zephyr_library_include_directories(
% for directory in layout.existing_include_dirs:
    "${root}/${directory}"
% endfor
  )
endif()
