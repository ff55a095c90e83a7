#!/bin/bash
# Installs weft into PREFIX (default /usr/local), one directory a container image can
# copy whole:
#   PREFIX/bin      weftrun, weft-bench, weft-info, mpicc, mpicxx, weftcc, weftcxx, mpirun,
#                   mpiexec
#   PREFIX/include  mpi.h and weft/*.h
#   PREFIX/lib      libmpi_abi.so.1 (with libmpi_abi.so and libmpi.so), libmpi_abi.a,
#                   libweft.so, libweft.a, pkgconfig/weft.pc and pkgconfig/mpi.pc,
#                   cmake/weft/ (find_package(weft): weft::weft and weft::mpi)
#
# Usage: tools/install.sh [PREFIX] [--keep-debug] [bazel build options]
#   The build is optimized (-c opt) unless bazel options are given, which replace that
#   (`-c fastbuild` reuses the test suite's build). Binaries and libraries are installed
#   without their debug information unless --keep-debug is given; their symbol tables
#   stay, so backtraces still name functions.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-/usr/local}")
shift || true
keep_debug=0
if [ "${1:-}" = "--keep-debug" ]; then
  keep_debug=1
  shift
fi
options=("$@")
[ ${#options[@]} -eq 0 ] && options=(-c opt)
# The workspace's bazel-bin and bazel-testlogs links stay where the last test run left
# them, whatever configuration this builds.
options+=(--symlink_prefix=/)

targets=(//tools/weftrun:weftrun //tools/bench:weft-bench //tools/info:weft-info
         //mpi:libmpi_abi.so.1 //mpi:libmpi_abi_archive //:libweft.so //:libweft_archive)
bazel build "${options[@]}" "${targets[@]}" >&2
bin=$(bazel info "${options[@]}" bazel-bin 2>/dev/null)

install -d "$prefix/bin" "$prefix/include/weft" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/weft"
install -m 755 "$bin/tools/weftrun/weftrun" "$bin/tools/bench/weft-bench" \
  "$bin/tools/info/weft-info" "$prefix/bin/"
install -m 755 tools/mpi/mpicc tools/mpi/mpirun "$prefix/bin/"
for name in mpicxx weftcc weftcxx; do ln -sf mpicc "$prefix/bin/$name"; done
ln -sf mpirun "$prefix/bin/mpiexec"

install -m 644 mpi/include/mpi.h "$prefix/include/"
install -m 644 include/weft/*.h "$prefix/include/weft/"

install -m 755 "$bin/mpi/libmpi_abi.so.1" "$bin/libweft.so" "$prefix/lib/"
install -m 644 "$bin/mpi/libmpi_abi.a" "$bin/libweft.a" "$prefix/lib/"
ln -sf libmpi_abi.so.1 "$prefix/lib/libmpi_abi.so"
ln -sf libmpi_abi.so.1 "$prefix/lib/libmpi.so"

if [ "$keep_debug" = 0 ]; then
  strip --strip-debug "$prefix/bin/weftrun" "$prefix/bin/weft-bench" "$prefix/bin/weft-info" \
    "$prefix/lib/libmpi_abi.so.1" "$prefix/lib/libweft.so" "$prefix/lib/libmpi_abi.a" \
    "$prefix/lib/libweft.a"
fi

# weft's version, from the header weftrun --version and weft-bench --version print.
version=$(sed -n 's/^inline constexpr char kVersion\[\] = "\(.*\)";$/\1/p' include/weft/version.h)
cat > "$prefix/lib/pkgconfig/weft.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: weft
Description: weft, a communication library for tensors across processes and hosts
Version: $version
Cflags: -I\${includedir} -pthread
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lweft -pthread
PC
cat > "$prefix/lib/pkgconfig/mpi.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: mpi
Description: weft's MPI library (MPI 5.0 standard ABI)
Version: 5.0
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lmpi_abi -pthread
PC
sed "s/@WEFT_VERSION@/$version/" tools/cmake/weftConfigVersion.cmake.in \
  > "$prefix/lib/cmake/weft/weftConfigVersion.cmake"
install -m 644 tools/cmake/weftConfig.cmake "$prefix/lib/cmake/weft/"
echo "installed weft $version into $prefix" >&2
