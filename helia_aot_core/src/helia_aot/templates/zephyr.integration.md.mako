The module is a Zephyr module: `zephyr/module.yml` names it, `zephyr/Kconfig` adds the option
`CONFIG_${symbol}` and `zephyr/CMakeLists.txt` builds the library `${layout.target}` when it is set.

1. Make the module known to your build, either in the application's `CMakeLists.txt` before
   `find_package(Zephyr)`:

   ```cmake
   list(APPEND ZEPHYR_EXTRA_MODULES ${"${CMAKE_CURRENT_SOURCE_DIR}"}/${layout.folder})
   ```

   or with `-DZEPHYR_EXTRA_MODULES=<absolute path of the module folder>` on the `west build`
   command line.
2. Enable it in `prj.conf`:

   ```text
   CONFIG_${symbol}=y
   ```

3. Include `${layout.prefix}_model.h` in your application; `includes-api/` is on the include path of
   every Zephyr library once the option is set.

A complete application next to the module folder (`${layout.folder}/`), its `main.c` and a
`prj.conf` holding `CONFIG_${symbol}=y`, in `CMakeLists.txt`:

```cmake
cmake_minimum_required(VERSION 3.20.0)
list(APPEND ZEPHYR_EXTRA_MODULES ${"${CMAKE_CURRENT_SOURCE_DIR}"}/${layout.folder})
find_package(Zephyr REQUIRED HINTS ${"$ENV{ZEPHYR_BASE}"})
project(my_app)
target_sources(app PRIVATE main.c)
```

Build it with `west build -b <your board> .`; Zephyr's board files set the core's compiler flags.
