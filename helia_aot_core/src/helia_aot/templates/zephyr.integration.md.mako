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
