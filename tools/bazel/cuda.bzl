"""cuda_objects and cuda_library: .cu files compiled with the toolkit's nvcc.

Bazel 4 has no CUDA rules of its own. cuda_objects runs nvcc once per .cu file, with
the include paths of its C++ deps and the C++ toolchain's compiler as nvcc's host
compiler, archives the objects (compiled with -fPIC) and provides them as CcInfo, so
that a cc_library can depend on it and executables, tests and linkshared binaries all
link it. The device code is a fat binary with SASS for every architecture in
`gpu_archs` and PTX for `ptx_arch`, which newer GPUs JIT-compile. cuda_library wraps it
in a cc_library with the static cudart.

Only under --config=cuda (//cuda/runtime:cuda_enabled) does anything run: otherwise
the targets are empty, and nothing refers to @cuda, so the default build works on
machines without the toolkit.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@rules_cc//cc:defs.bzl", "cc_library")

# Ampere (A100) and Hopper (H100, H200) natively; PTX of Hopper for anything newer.
DEFAULT_GPU_ARCHS = ["sm_80", "sm_90"]
DEFAULT_PTX_ARCH = "compute_90"

_CUDA_ENABLED = "//cuda/runtime:cuda_enabled"

def _gencode_flags(gpu_archs, ptx_arch):
    flags = []
    for arch in gpu_archs:
        flags.append("-gencode=arch=compute_{0},code=sm_{0}".format(arch[len("sm_"):]))
    if ptx_arch:
        flags.append("-gencode=arch={0},code={0}".format(ptx_arch))
    return flags

def _cuda_objects_impl(ctx):
    if not ctx.attr.enabled:
        return [DefaultInfo(files = depset()), CcInfo()]

    cc_toolchain = find_cpp_toolchain(ctx)
    contexts = [dep[CcInfo].compilation_context for dep in ctx.attr.deps]
    # The toolkit's headers are inputs only: nvcc finds them in its own tree.
    cuda_contexts = [dep[CcInfo].compilation_context for dep in ctx.attr.cuda_headers]
    headers = depset(
        ctx.files.hdrs,
        transitive = [c.headers for c in contexts + cuda_contexts] + [cc_toolchain.all_files],
    )

    args_common = [
        "-std=c++20",
        "-O3",
        "-Xcompiler",
        "-fPIC",
        "-ccbin",
        cc_toolchain.compiler_executable,
    ] + _gencode_flags(ctx.attr.gpu_archs, ctx.attr.ptx_arch)
    merged = cc_common.merge_cc_infos(
        cc_infos = [dep[CcInfo] for dep in ctx.attr.deps],
    ).compilation_context
    # The workspace root first, as for C++ sources (the deps' quote includes hold it).
    include_dirs = {".": None, ctx.bin_dir.path: None}
    for d in merged.quote_includes.to_list() + merged.includes.to_list():
        include_dirs[d] = None
    args_common += ["-I" + d for d in include_dirs]
    for d in merged.system_includes.to_list():
        args_common += ["-isystem", d]
    args_common += ["-D" + d for d in merged.defines.to_list()]
    args_common += ctx.attr.copts

    objects = []
    for src in ctx.files.srcs:
        stem = src.basename[:-len(".cu")]
        obj = ctx.actions.declare_file("_cuda_objs/{}/{}.pic.o".format(ctx.label.name, stem))
        ctx.actions.run(
            executable = ctx.attr.nvcc,
            arguments = args_common + ["-c", src.path, "-o", obj.path],
            inputs = depset([src], transitive = [headers]),
            outputs = [obj],
            mnemonic = "CudaCompile",
            progress_message = "Compiling CUDA %s" % src.short_path,
            use_default_shell_env = True,
        )
        objects.append(obj)

    # One position-independent archive, which Bazel links into executables, tests and
    # shared libraries alike (a cc_library given both an .o and a .pic.o of one source
    # would link both into a .so).
    archive = ctx.actions.declare_file("lib{}.pic.a".format(ctx.label.name))
    ctx.actions.run(
        executable = cc_toolchain.ar_executable,
        arguments = ["rcsD", archive.path] + [o.path for o in objects],
        inputs = depset(objects, transitive = [cc_toolchain.all_files]),
        outputs = [archive],
        mnemonic = "CudaArchive",
        progress_message = "Archiving CUDA objects of %s" % ctx.label,
    )
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    library = cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        pic_static_library = archive,
        alwayslink = ctx.attr.alwayslink,
    )
    linking_context = cc_common.create_linking_context(
        linker_inputs = depset([cc_common.create_linker_input(
            owner = ctx.label,
            libraries = depset([library]),
        )]),
    )
    return [
        DefaultInfo(files = depset([archive])),
        CcInfo(linking_context = linking_context),
    ]

cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "gpu_archs": attr.string_list(default = DEFAULT_GPU_ARCHS),
        "ptx_arch": attr.string(default = DEFAULT_PTX_ARCH),
        # Set with select() on //cuda/runtime:cuda_enabled: false builds nothing.
        "enabled": attr.bool(default = False),
        "alwayslink": attr.bool(default = False),
        "cuda_headers": attr.label_list(providers = [CcInfo]),
        "nvcc": attr.string(default = "/usr/local/cuda/bin/nvcc"),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    provides = [CcInfo],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

def cuda_library(name, srcs, hdrs = [], deps = [], copts = [], gpu_archs = DEFAULT_GPU_ARCHS,
                 ptx_arch = DEFAULT_PTX_ARCH, **kwargs):
    """A cc_library of .cu files (and their headers) linked with the static cudart.

    Under the default build it holds only the headers and no code.
    """
    cuda_objects(
        name = name + "_objects",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = copts,
        gpu_archs = gpu_archs,
        ptx_arch = ptx_arch,
        enabled = select({
            _CUDA_ENABLED: True,
            "//conditions:default": False,
        }),
        cuda_headers = select({
            _CUDA_ENABLED: ["@cuda//:headers"],
            "//conditions:default": [],
        }),
        visibility = ["//visibility:private"],
    )
    cc_library(
        name = name,
        hdrs = hdrs,
        deps = deps + [":" + name + "_objects"] + select({
            _CUDA_ENABLED: ["@cuda//:cudart_static"],
            "//conditions:default": [],
        }),
        **kwargs
    )
