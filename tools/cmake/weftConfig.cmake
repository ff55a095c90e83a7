# find_package(weft) for CMake projects, installed by tools/install.sh into
# PREFIX/lib/cmake/weft. Imported targets:
#   weft::weft  libweft.so and weft/*.h: the torch.distributed-style C++ API
#   weft::mpi   libmpi_abi.so.1 and mpi.h: weft's MPI library (MPI 5.0 standard ABI)
# The prefix is found from this file's own place, so an installed tree can be moved.
include(CMakeFindDependencyMacro)
find_dependency(Threads)

get_filename_component(_weft_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

foreach(_weft_file IN ITEMS include/weft/weft.h include/mpi.h lib/libweft.so lib/libmpi_abi.so.1)
  if(NOT EXISTS "${_weft_prefix}/${_weft_file}")
    set(weft_FOUND FALSE)
    set(weft_NOT_FOUND_MESSAGE
        "weft's ${_weft_file} is missing under ${_weft_prefix}: reinstall with tools/install.sh")
    return()
  endif()
endforeach()

# An imported shared library of the install, with weft's headers and threads.
function(_weft_import target library soname)
  if(TARGET ${target})
    return()
  endif()
  add_library(${target} SHARED IMPORTED)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${_weft_prefix}/lib/${library}"
    IMPORTED_SONAME "${soname}"
    INTERFACE_INCLUDE_DIRECTORIES "${_weft_prefix}/include"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endfunction()

_weft_import(weft::weft libweft.so libweft.so)
set_property(TARGET weft::weft PROPERTY INTERFACE_COMPILE_FEATURES cxx_std_20)
_weft_import(weft::mpi libmpi_abi.so.1 libmpi_abi.so.1)

set(weft_INCLUDE_DIRS "${_weft_prefix}/include")
set(weft_LIBRARIES weft::weft)
unset(_weft_prefix)
unset(_weft_file)
