"""static_archive: one .a holding the objects of a cc_library and all its deps.

cc_library writes one archive per target; people who link weft outside Bazel want a
single libweft.a. This rule collects every static library in the dependency graph
(system libraries given as linkopts stay outside) and merges them with ar's MRI script.
"""

def _static_archive_impl(ctx):
    archives = []
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for library in linker_input.libraries:
                archive = library.pic_static_library or library.static_library
                if archive:
                    archives.append(archive)
    out = ctx.outputs.out
    script = "create {}\n".format(out.path)
    for archive in archives:
        script += "addlib {}\n".format(archive.path)
    script += "save\nend\n"
    ctx.actions.run_shell(
        inputs = archives,
        outputs = [out],
        command = "printf '%s' \"$1\" | ar -M",
        arguments = [script],
        mnemonic = "MergeArchives",
        progress_message = "Merging %d archives into %s" % (len(archives), out.short_path),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

static_archive = rule(
    implementation = _static_archive_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "out": attr.output(mandatory = True),
    },
)
