<% t = layout.target %>\
The module is a CMake project defining the static library `${t}` (alias `helia_aot::${t}`).
Add it to your project and link it. A complete application next to the module folder
(`${layout.folder}/`) and its `main.c`, in `CMakeLists.txt`:

```cmake
cmake_minimum_required(VERSION 3.13)
project(my_app C)
add_subdirectory(${layout.folder})
add_executable(my_app main.c)
target_link_libraries(my_app PRIVATE helia_aot::${t})
```

```sh
cmake -S . -B build
cmake --build build
```

The build tree (`build/`) is outside the module folder, so `helia-aot convert --force` can still
replace the module; keep it there rather than configuring inside `${layout.folder}/`.

For the target core, configure with the cross compiler and the core's flags
(`${" ".join(layout.cpu_flags) or "<your core's -mcpu flags>"}`, also printed by `helia-aot platforms show ${layout.platform_name}`), for example
`cmake -S . -B build-arm -DCMAKE_SYSTEM_NAME=Generic -DCMAKE_C_COMPILER=arm-none-eabi-gcc
-DCMAKE_C_FLAGS="${" ".join(layout.cpu_flags)}" -DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY`,
or let your firmware's toolchain file set them.

The public headers are in `includes-api/`; include `${layout.prefix}_model.h`. To place arenas or code
in a particular memory, define the placement macros on the target, for example:

```cmake
target_compile_definitions(${t} PRIVATE
  "${PREFIX}_PUT_IN_DTCM=__attribute__((section(\".dtcm_data\")))")
```
