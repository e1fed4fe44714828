The module is an NSX module: `nsx-module.yaml` describes it (package `${layout.target}`, target
`nsx::${layout.target}`, no dependencies) and `CMakeLists.txt` defines the library.

1. Register it with your NSX application:

   ```sh
   nsx module register ${module_name} --metadata ${layout.folder}/nsx-module.yaml \
       --project ${layout.target} --project-local-path ${layout.folder} --app-dir .
   ```

2. Link it in the application's `CMakeLists.txt`:

   ```cmake
   target_link_libraries(my_app PRIVATE nsx::${layout.target})
   ```

3. Include `${layout.prefix}_model.h`. The module links `${"${NSX_BOARD_FLAGS_TARGET}"}` when the board
   defines it, so it is compiled with the board's CPU and FPU flags.
