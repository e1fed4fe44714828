# ${module_name}: helia-aot module of ${model_comment} (static library target ${module_name}).
cmake_minimum_required(VERSION 3.13)
project(${module_name} LANGUAGES C)

file(GLOB_RECURSE ${PREFIX}_SOURCES CONFIGURE_DEPENDS "${"${CMAKE_CURRENT_SOURCE_DIR}"}/src/*.c")
add_library(${module_name} STATIC ${"${"}${PREFIX}_SOURCES})
target_include_directories(${module_name} PUBLIC "${"${CMAKE_CURRENT_SOURCE_DIR}"}/includes-api")
target_include_directories(${module_name} PRIVATE "${"${CMAKE_CURRENT_SOURCE_DIR}"}/src" "${"${CMAKE_CURRENT_SOURCE_DIR}"}/src/kernels")
set_target_properties(${module_name} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
find_library(${PREFIX}_LIBM m)
if(${PREFIX}_LIBM)
  target_link_libraries(${module_name} PUBLIC ${"${"}${PREFIX}_LIBM})
endif()
