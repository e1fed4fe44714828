<% t = layout.target %>\
The module is a CMake project defining the static library `${t}` (alias `helia_aot::${t}`).
Add it to your project and link it:

```cmake
add_subdirectory(${layout.folder})
target_link_libraries(my_app PRIVATE helia_aot::${t})
```

The public headers are in `includes-api/`; include `${layout.prefix}_model.h`. To place arenas or code
in a particular memory, define the placement macros on the target, for example:

```cmake
target_compile_definitions(${t} PRIVATE
  "${PREFIX}_PUT_IN_DTCM=__attribute__((section(\".dtcm_data\")))")
```
