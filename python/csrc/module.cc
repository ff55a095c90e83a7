// weft._C: the extension module. create_backend is what torch.distributed's backend
// registry calls (through weft/torch.py) for every group made with backend "weft".
#include <torch/csrc/utils/pybind.h>
#include <torch/python.h>
#include <weft/process_group.h>
#include <weft/store.h>
#include <weft/version.h>

#include "backend.h"

namespace {

c10::intrusive_ptr<c10d::Backend> create_backend(const c10::intrusive_ptr<c10d::Store>& store,
                                                 int rank, int size, double timeout_seconds,
                                                 std::vector<int64_t> global_ranks,
                                                 const std::string& group_name) {
  auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000.0));
  return c10::make_intrusive<weft::torch_backend::WeftBackend>(store, rank, size, timeout,
                                                               std::move(global_ranks), group_name);
}

}  // namespace

PYBIND11_MODULE(_C, module) {
  module.doc() = "weft's torch.distributed backend";
  module.def("create_backend", &create_backend, py::arg("store"), py::arg("rank"), py::arg("size"),
             py::arg("timeout_seconds"), py::arg("global_ranks"), py::arg("group_name"),
             py::call_guard<py::gil_scoped_release>());
  module.attr("weft_version") = weft::kVersion;

  // weft's own store, for weft/torch.py under weftrun (see there).
  py::class_<weft::Store, std::shared_ptr<weft::Store>>(module, "Store")
      .def("set", &weft::Store::set, py::call_guard<py::gil_scoped_release>())
      .def(
          "get",
          [](weft::Store& store, const std::string& key, double timeout_seconds) {
            return store.get(key, weft::Timeout(static_cast<int64_t>(timeout_seconds * 1000)));
          },
          py::call_guard<py::gil_scoped_release>());
  // The launcher's job (Slurm, Open MPI, PMI), for weft/torch.py to give torch's env://
  // what it reads: a dict, or None when no launcher is recognised.
  module.def("launched_job", []() -> py::object {
    auto job = weft::launched_job();
    if (!job) return py::none();
    py::dict d;
    d["launcher"] = job->launcher;
    d["rank"] = job->rank;
    d["world_size"] = job->world_size;
    d["local_rank"] = job->local_rank;
    d["store_host"] = job->store_host;
    d["store_port"] = job->store_port;
    return d;
  });
  module.def(
      "connect_store",
      [](const std::string& host, int port, double timeout_seconds) {
        return weft::connect_store(host, port,
                                   weft::Timeout(static_cast<int64_t>(timeout_seconds * 1000)));
      },
      py::call_guard<py::gil_scoped_release>());
}
