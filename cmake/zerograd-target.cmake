# The imported target zerograd::zerograd, for the installed package (zerogradConfig.cmake) and for
# the source tree taken with add_subdirectory or FetchContent (CMakeLists.txt). The caller sets
# zerograd_include_dir, zerograd_blas (ON: the tensors' matrix products go to OpenBLAS) and
# zerograd_target_scope (GLOBAL where the target must be seen above the calling directory).
if(TARGET zerograd::zerograd)
  return()
endif()

find_package(Boost 1.74 QUIET)
if(NOT Boost_FOUND)
  message(FATAL_ERROR "zerograd needs Boost.Hana's headers: Boost 1.74 or later (Debian: libboost-dev)")
endif()

add_library(zerograd::zerograd INTERFACE IMPORTED ${zerograd_target_scope})
# C++20 as a compile feature: a project asking for C++23 keeps it.
target_compile_features(zerograd::zerograd INTERFACE cxx_std_20)
target_include_directories(zerograd::zerograd INTERFACE "${zerograd_include_dir}")
target_link_libraries(zerograd::zerograd INTERFACE Boost::headers)

# Eigen runs the tensors' matrix products where found (plain loops otherwise).
find_package(Eigen3 3.3 CONFIG QUIET)
set(zerograd_Eigen_FOUND ${Eigen3_FOUND})
if(Eigen3_FOUND)
  target_link_libraries(zerograd::zerograd INTERFACE Eigen3::Eigen)
endif()

# OpenBLAS only when asked for: EIGEN_USE_BLAS also changes the project's own Eigen code.
set(zerograd_OpenBLAS_FOUND FALSE)
if(zerograd_blas AND Eigen3_FOUND)
  find_package(OpenBLAS CONFIG QUIET)
  if(OpenBLAS_FOUND)
    target_compile_definitions(zerograd::zerograd INTERFACE EIGEN_USE_BLAS)
    target_link_libraries(zerograd::zerograd INTERFACE ${OpenBLAS_LIBRARIES})
    set(zerograd_OpenBLAS_FOUND TRUE)
  endif()
endif()
