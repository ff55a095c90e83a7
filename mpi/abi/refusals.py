#!/usr/bin/env python3
"""The MPI functions weft exports but does not carry out, and why.

Every function of the standard (mpi/abi/functions.txt) is exported. Those that no file
of mpi/src defines as PMPI_name get a generated definition that refuses: it reports the
standard's error class with a message saying what is missing, through the same error
handlers as any other failure, so a program can tell "not here" from "went wrong".

  refusals.py --cc OUT SRC...    writes the refusing definitions (a Bazel genrule runs it)
  refusals.py --table SRC...     prints docs/MPI.md's table of what is implemented
  refusals.py --docs MD SRC...   writes that table into MD between its two markers
  refusals.py --check MD SRC...  exits 1 if MD's table is not the one the sources give
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (pattern on the name without MPI_, error class, why). The first match applies.
REASONS = [
    (r'^Comm_spawn', 'MPI_ERR_SPAWN',
     'weftrun starts a job whole, and processes cannot be added to it'),
    (r'^(Win_|Put|Get(_c)?$|R?[Aa]ccumulate|R?[Gg]et_accumulate|Rput|Rget|Fetch_and_op|'
     r'Compare_and_swap)',
     'MPI_ERR_UNSUPPORTED_OPERATION', 'weft has no one-sided communication (RMA)'),
    (r'.', 'MPI_ERR_UNSUPPORTED_OPERATION', 'weft does not carry out this function'),
]

# The chapters docs/MPI.md's table is grouped by (pattern, title); the first match
# applies, and the order is the table's.
CHAPTERS = [
    (r'^(Abi_|\w+_toint$|\w+_fromint$)', 'ABI queries and handle conversion'),
    (r'^T_', 'Tool information interface (MPI_T)'),
    (r'^(Session_|Group_from_session_pset|Comm_create_from_group$)', 'Sessions'),
    (r'^(Comm_spawn|Comm_accept|Comm_connect|Comm_disconnect|Comm_join|Comm_get_parent|'
     r'Open_port|Close_port|Publish_name|Unpublish_name|Lookup_name)', 'Dynamic processes'),
    (r'^(Win_|Put|Get(_c)?$|R?[Aa]ccumulate|R?[Gg]et_accumulate|Rput|Rget|Fetch_and_op|'
     r'Compare_and_swap|Alloc_mem|Free_mem)', 'One-sided communication'),
    (r'^(File_|Register_datarep)', 'MPI-IO'),
    (r'^(Cart|Graph|Dist_graph|Topo_test|Dims_create|Neighbor_|Ineighbor_)',
     'Process topologies and neighbourhood collectives'),
    (r'^Info_', 'Info objects'),
    (r'^(\w+_create_keyval|\w+_free_keyval|\w+_set_attr|\w+_get_attr|\w+_delete_attr|'
     r'Attr_|Keyval_)', 'Attributes'),
    (r'^(Error_|Add_error|Remove_error|\w+_errhandler$|\w+_create_errhandler|'
     r'\w+_call_errhandler|Errhandler_)', 'Errors and error handlers'),
    (r'^(Psend|Precv|Pready|Parrived)', 'Partitioned point-to-point'),
    (r'^(Send_init|Ssend_init|Rsend_init|Bsend_init|Recv_init)', 'Point-to-point'),
    (r'^(Barrier|Bcast|Reduce|Allreduce|Gather|Allgather|Scatter|Alltoall|Scan|Exscan|'
     r'Ibarrier|Ibcast|Ireduce|Iallreduce|Igather|Iallgather|Iscatter|Ialltoall|Iscan|'
     r'Iexscan)', 'Collective operations'),
    (r'^(Op_|Reduce_local)', 'Collective operations'),
    (r'^Group_', 'Groups'),
    (r'^(Comm_|Intercomm_)', 'Communicators'),
    (r'^(Type_|Pack|Unpack|Get_address|Aint_|Get_elements|Get_count)', 'Datatypes'),
    (r'^(Wait|Test|Request_|Cancel|Start|Status_|Grequest_)', 'Requests and statuses'),
    (r'^(Init|Init_thread|Initialized|Finalize|Finalized|Abort|Query_thread|Is_thread_main|'
     r'Get_version|Get_library_version|Get_processor_name|Get_hw_resource_info|Wtime|Wtick|'
     r'Pcontrol)$', 'Environment'),
    (r'.', 'Point-to-point'),
]

DEFINITION = re.compile(r'^[A-Za-z_][\w \*]*\bPMPI_(\w+)\s*\(', re.M)


def standard_functions():
    """[(return type, name, parameters)] in the standard's order."""
    result = []
    with open(os.path.join(HERE, 'functions.txt')) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            ret, name, params = line.rstrip('\n').split('|')
            result.append((ret, name, params))
    return result


def defined_in(sources):
    names = set()
    for path in sources:
        with open(path) as f:
            names.update(DEFINITION.findall(f.read()))
    return names


def first_match(table, name):
    for entry in table:
        if re.match(entry[0], name):
            return entry
    raise AssertionError(name)


def refusal(ret, name, params):
    if ret != 'int':
        sys.exit('refusals.py: MPI_%s returns %s and cannot refuse; implement it' % (name, ret))
    if name.startswith('T_'):
        # The tool interface has no error handlers to refuse through.
        sys.exit('refusals.py: MPI_%s is a tool-interface function and cannot refuse; '
                 'implement it' % name)
    _, error_class, why = first_match(REASONS, name)
    comm = re.search(r'\bMPI_Comm (\w+)\s*(,|$)', params)
    body = 'return weft::mpi::refuse("MPI_%s", %s, %s, "%s");' % (
        name, error_class, comm.group(1) if comm else 'MPI_COMM_SELF', why)
    return '%s PMPI_%s(%s) {\n  %s\n}\nWEFT_MPI_ALIAS(%s)\n' % (ret, name, params, body, name)


def write_cc(out, sources):
    done = defined_in(sources)
    parts = [
        '// Generated by mpi/abi/refusals.py: the functions of the standard that weft\n'
        '// exports but does not carry out. Do not edit; implement one in mpi/src instead.\n'
        '#include <mpi.h>\n\n#include "mpi/src/errors.h"\n#include "mpi/src/export.h"\n\n'
        '#pragma GCC diagnostic ignored "-Wunused-parameter"\n\nextern "C" {\n'
    ]
    for ret, name, params in standard_functions():
        if name not in done:
            parts.append(refusal(ret, name, params))
    parts.append('}  // extern "C"\n')
    with open(out, 'w') as f:
        f.write('\n'.join(parts))


def table(sources):
    done = defined_in(sources)
    chapters = {}
    for _, name, _ in standard_functions():
        chapter = first_match(CHAPTERS, name)[1]
        chapters.setdefault(chapter, ([], []))[0 if name in done else 1].append(name)
    order = []
    for _, title in CHAPTERS:
        if title in chapters and title not in order:
            order.append(title)
    lines = ['| Part of the standard | Implemented | Refused |', '|---|---|---|']
    total_done = total_refused = 0
    for title in order:
        implemented, refused = chapters[title]
        total_done += len(implemented)
        total_refused += len(refused)
        names = ', '.join('MPI_' + n for n in refused) if refused else '—'
        lines.append('| %s | %d of %d | %s |' % (
            title, len(implemented), len(implemented) + len(refused), names))
    lines.append('| **All** | **%d of %d** | %d |' % (
        total_done, total_done + total_refused, total_refused))
    return '\n'.join(lines) + '\n'


MARKER_BEGIN = '<!-- implemented table: mpi/abi/refusals.py --docs docs/MPI.md mpi/src/*.cc -->\n'
MARKER_END = '<!-- end of implemented table -->\n'


def docs_with_table(path, sources):
    with open(path) as f:
        text = f.read()
    begin = text.index(MARKER_BEGIN) + len(MARKER_BEGIN)
    end = text.index(MARKER_END)
    return text, text[:begin] + table(sources) + text[end:]


def main(argv):
    if len(argv) >= 3 and argv[1] == '--cc':
        write_cc(argv[2], argv[3:])
    elif len(argv) >= 2 and argv[1] == '--table':
        sys.stdout.write(table(argv[2:]))
    elif len(argv) >= 3 and argv[1] in ('--docs', '--check'):
        old, new = docs_with_table(argv[2], argv[3:])
        if argv[1] == '--docs':
            with open(argv[2], 'w') as f:
                f.write(new)
        elif old != new:
            sys.exit('%s: the table of implemented functions is out of date; run\n'
                     '  python3 mpi/abi/refusals.py --docs %s mpi/src/*.cc' % (argv[2], argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
