#!/bin/bash
# Installs weft into PREFIX (default /usr/local), one directory a container image can
# copy whole:
#   PREFIX/bin      weftrun, weft-bench, mpicc, mpicxx, weftcc, weftcxx, mpirun, mpiexec
#   PREFIX/include  mpi.h and weft/*.h
#   PREFIX/lib      libmpi_abi.so.1 (with libmpi_abi.so and libmpi.so), libmpi_abi.a,
#                   libweft.so, libweft.a, pkgconfig/weft.pc and pkgconfig/mpi.pc
# Usage: tools/install.sh [PREFIX] [extra bazel build options, e.g. -c opt]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-/usr/local}")
shift || true

targets=(//tools/weftrun:weftrun //tools/bench:weft-bench //mpi:libmpi_abi.so.1
         //mpi:libmpi_abi_archive //:libweft.so //:libweft_archive)
bazel build "$@" "${targets[@]}" >&2
bin=$(bazel info "$@" bazel-bin 2>/dev/null)

install -d "$prefix/bin" "$prefix/include/weft" "$prefix/lib/pkgconfig"
install -m 755 "$bin/tools/weftrun/weftrun" "$bin/tools/bench/weft-bench" "$prefix/bin/"
install -m 755 tools/mpi/mpicc tools/mpi/mpirun "$prefix/bin/"
for name in mpicxx weftcc weftcxx; do ln -sf mpicc "$prefix/bin/$name"; done
ln -sf mpirun "$prefix/bin/mpiexec"

install -m 644 mpi/include/mpi.h "$prefix/include/"
install -m 644 include/weft/*.h "$prefix/include/weft/"

install -m 755 "$bin/mpi/libmpi_abi.so.1" "$bin/libweft.so" "$prefix/lib/"
install -m 644 "$bin/mpi/libmpi_abi.a" "$bin/libweft.a" "$prefix/lib/"
ln -sf libmpi_abi.so.1 "$prefix/lib/libmpi_abi.so"
ln -sf libmpi_abi.so.1 "$prefix/lib/libmpi.so"

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
echo "installed weft into $prefix" >&2
