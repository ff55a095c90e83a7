#include "transport/ib/verbs_api.h"

#include <dlfcn.h>

#include <atomic>
#include <type_traits>

#include "transport/ib/own_verbs.h"

namespace weft::transport::ib {
namespace {

// The table's entries for exported functions have exactly the header's types, so a
// pointer found by name is called as the library defines it.
template <typename Entry, typename Declared>
constexpr bool same_type = std::is_same_v<Entry, Declared>;
static_assert(same_type<decltype(VerbsApi::get_device_list), decltype(&::ibv_get_device_list)>);
static_assert(same_type<decltype(VerbsApi::free_device_list), decltype(&::ibv_free_device_list)>);
static_assert(same_type<decltype(VerbsApi::get_device_name), decltype(&::ibv_get_device_name)>);
static_assert(same_type<decltype(VerbsApi::open_device), decltype(&::ibv_open_device)>);
static_assert(same_type<decltype(VerbsApi::close_device), decltype(&::ibv_close_device)>);
static_assert(same_type<decltype(VerbsApi::query_device), decltype(&::ibv_query_device)>);
static_assert(same_type<decltype(VerbsApi::query_gid), decltype(&::ibv_query_gid)>);
static_assert(same_type<decltype(VerbsApi::alloc_pd), decltype(&::ibv_alloc_pd)>);
static_assert(same_type<decltype(VerbsApi::dealloc_pd), decltype(&::ibv_dealloc_pd)>);
static_assert(same_type<decltype(VerbsApi::reg_mr), decltype(&::ibv_reg_mr)>);
static_assert(same_type<decltype(VerbsApi::dereg_mr), decltype(&::ibv_dereg_mr)>);
static_assert(same_type<decltype(VerbsApi::reg_dmabuf_mr), decltype(&::ibv_reg_dmabuf_mr)>);
static_assert(
    same_type<decltype(VerbsApi::create_comp_channel), decltype(&::ibv_create_comp_channel)>);
static_assert(
    same_type<decltype(VerbsApi::destroy_comp_channel), decltype(&::ibv_destroy_comp_channel)>);
static_assert(same_type<decltype(VerbsApi::create_cq), decltype(&::ibv_create_cq)>);
static_assert(same_type<decltype(VerbsApi::destroy_cq), decltype(&::ibv_destroy_cq)>);
static_assert(same_type<decltype(VerbsApi::create_qp), decltype(&::ibv_create_qp)>);
static_assert(same_type<decltype(VerbsApi::modify_qp), decltype(&::ibv_modify_qp)>);
static_assert(same_type<decltype(VerbsApi::destroy_qp), decltype(&::ibv_destroy_qp)>);
static_assert(same_type<own::ExportedQueryPort, decltype(&::ibv_query_port)>);

std::atomic<const VerbsApi*> testing_api{nullptr};

}  // namespace

LoadedVerbs load_system_verbs(const char* library) {
  LoadedVerbs loaded;
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    loaded.why_not = std::string(library) + " not loadable: " + (error ? error : "dlopen failed");
    return loaded;
  }
  // dlsym finds a name's default version, the one a program linked with -libverbs
  // binds to (the older versions serve binaries built against the library's first ABI).
  auto find = [&](const char* name, auto& entry) {
    void* symbol = dlsym(handle, name);
    if (symbol == nullptr) {
      if (loaded.why_not.empty()) {
        loaded.why_not = std::string(library) + ": symbol " + name + " missing";
      }
      return;
    }
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(symbol);
  };
  VerbsApi api;
  own::ExportedQueryPort exported_query_port = nullptr;
  find("ibv_get_device_list", api.get_device_list);
  find("ibv_free_device_list", api.free_device_list);
  find("ibv_get_device_name", api.get_device_name);
  find("ibv_open_device", api.open_device);
  find("ibv_close_device", api.close_device);
  find("ibv_query_device", api.query_device);
  find("ibv_query_port", exported_query_port);
  find("ibv_query_gid", api.query_gid);
  find("ibv_alloc_pd", api.alloc_pd);
  find("ibv_dealloc_pd", api.dealloc_pd);
  find("ibv_reg_mr", api.reg_mr);
  find("ibv_dereg_mr", api.dereg_mr);
  find("ibv_create_comp_channel", api.create_comp_channel);
  find("ibv_destroy_comp_channel", api.destroy_comp_channel);
  find("ibv_create_cq", api.create_cq);
  find("ibv_destroy_cq", api.destroy_cq);
  find("ibv_create_qp", api.create_qp);
  find("ibv_modify_qp", api.modify_qp);
  find("ibv_destroy_qp", api.destroy_qp);
  if (!loaded.why_not.empty()) {
    dlclose(handle);
    return loaded;
  }
  // Optional: an older library lacks it, and only GPUDirect RDMA by dma-buf needs it.
  api.reg_dmabuf_mr =
      reinterpret_cast<decltype(api.reg_dmabuf_mr)>(dlsym(handle, "ibv_reg_dmabuf_mr"));
  own::set_exported_query_port(exported_query_port);
  api.query_port = own::query_port;
  api.query_gid_type = own::query_gid_type;
  api.device_numa_node = own::device_numa_node;
  api.poll_cq = own::poll_cq;
  api.post_send = own::post_send;
  api.post_recv = own::post_recv;
  loaded.api = api;
  return loaded;
}

const VerbsApi* verbs_api(std::string* why_not) {
  if (const VerbsApi* api = testing_api.load(std::memory_order_acquire)) return api;
  static const LoadedVerbs system = load_system_verbs(kLibibverbs);
  if (system.api) return &*system.api;
  if (why_not != nullptr) *why_not = system.why_not;
  return nullptr;
}

void use_verbs_for_testing(const VerbsApi* api) {
  testing_api.store(api, std::memory_order_release);
}

}  // namespace weft::transport::ib
