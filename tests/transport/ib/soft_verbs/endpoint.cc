#include "tests/transport/ib/soft_verbs/endpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace weft::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr uint8_t kRoceV2Gid = 1;

}  // namespace

std::string EndpointAddress::text() const {
  std::ostringstream out;
  out << qpn << ' ' << psn << ' ' << addr << ' ' << rkey;
  return out.str();
}

EndpointAddress EndpointAddress::parse(const std::string& text) {
  EndpointAddress address;
  std::istringstream in(text);
  in >> address.qpn >> address.psn >> address.addr >> address.rkey;
  return address;
}

Endpoint::Endpoint(const EndpointOptions& chosen) : api(soft_verbs_api()), options(chosen) {
  int count = 0;
  ibv_device** devices = api.get_device_list(&count);
  EXPECT_GT(count, options.device);
  context = count > options.device ? api.open_device(devices[options.device]) : nullptr;
  api.free_device_list(devices);
  EXPECT_NE(context, nullptr) << soft_verbs_last_error();
  if (context == nullptr) return;
  pd = api.alloc_pd(context);
  cq = api.create_cq(context, options.cqe, nullptr, nullptr, 0);
  buffer.assign(options.buffer_bytes, 0);
  mr = api.reg_mr(pd, buffer.data(), buffer.size(), options.buffer_access);
  ibv_qp_init_attr init{};
  init.send_cq = cq;
  init.recv_cq = cq;
  init.qp_type = IBV_QPT_RC;
  init.sq_sig_all = options.signal_all ? 1 : 0;
  init.cap.max_send_wr = options.max_send_wr;
  init.cap.max_recv_wr = options.max_recv_wr;
  init.cap.max_send_sge = 4;
  init.cap.max_recv_sge = 4;
  init.cap.max_inline_data = options.max_inline_data;
  qp = api.create_qp(pd, &init);
  EXPECT_TRUE(pd != nullptr && cq != nullptr && mr != nullptr && qp != nullptr)
      << soft_verbs_last_error();
}

Endpoint::~Endpoint() {
  if (qp != nullptr) {
    EXPECT_EQ(api.destroy_qp(qp), 0) << soft_verbs_last_error();
  }
  if (mr != nullptr) {
    EXPECT_EQ(api.dereg_mr(mr), 0) << soft_verbs_last_error();
  }
  if (cq != nullptr) {
    EXPECT_EQ(api.destroy_cq(cq), 0) << soft_verbs_last_error();
  }
  if (pd != nullptr) {
    EXPECT_EQ(api.dealloc_pd(pd), 0) << soft_verbs_last_error();
  }
  if (context != nullptr) {
    EXPECT_EQ(api.close_device(context), 0) << soft_verbs_last_error();
  }
}

EndpointAddress Endpoint::address() const {
  EndpointAddress address;
  address.qpn = qp->qp_num;
  address.psn = options.sq_psn;
  address.addr = reinterpret_cast<uint64_t>(buffer.data());
  address.rkey = mr->rkey;
  return address;
}

ibv_qp_attr Endpoint::init_attributes() const {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = 1;
  attr.qp_access_flags = options.qp_access;
  return attr;
}

ibv_qp_attr Endpoint::rtr_attributes(const EndpointAddress& peer) const {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = IBV_MTU_4096;
  attr.dest_qp_num = peer.qpn;
  attr.rq_psn = peer.psn;
  attr.max_dest_rd_atomic = 4;
  attr.min_rnr_timer = options.min_rnr_timer;
  attr.ah_attr.is_global = 1;
  attr.ah_attr.port_num = 1;
  attr.ah_attr.grh.sgid_index = kRoceV2Gid;
  attr.ah_attr.grh.hop_limit = 1;
  EXPECT_EQ(api.query_gid(context, 1, kRoceV2Gid, &attr.ah_attr.grh.dgid), 0);
  return attr;
}

ibv_qp_attr Endpoint::rts_attributes() const {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTS;
  attr.timeout = options.timeout;
  attr.retry_cnt = options.retry_cnt;
  attr.rnr_retry = options.rnr_retry;
  attr.sq_psn = options.sq_psn;
  attr.max_rd_atomic = 4;
  return attr;
}

int Endpoint::modify(ibv_qp_attr attr, int attr_mask) {
  return api.modify_qp(qp, &attr, attr_mask);
}

int Endpoint::to_init() { return modify(init_attributes(), kInitMask); }

int Endpoint::to_rtr(const EndpointAddress& peer) { return modify(rtr_attributes(peer), kRtrMask); }

int Endpoint::to_rts() { return modify(rts_attributes(), kRtsMask); }

void Endpoint::connect(const EndpointAddress& peer) {
  ASSERT_EQ(to_init(), 0) << soft_verbs_last_error();
  ASSERT_EQ(to_rtr(peer), 0) << soft_verbs_last_error();
  ASSERT_EQ(to_rts(), 0) << soft_verbs_last_error();
}

int Endpoint::post_recv(uint64_t wr_id, size_t offset, size_t length) {
  ibv_sge sge{reinterpret_cast<uint64_t>(buffer.data() + offset), static_cast<uint32_t>(length),
              mr->lkey};
  ibv_recv_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return api.post_recv(qp, &wr, &bad);
}

int Endpoint::post_send(ibv_wr_opcode opcode, uint64_t wr_id, size_t offset, size_t length,
                        uint64_t remote_addr, uint32_t rkey, uint32_t imm, unsigned flags) {
  ibv_sge sge{reinterpret_cast<uint64_t>(buffer.data() + offset), static_cast<uint32_t>(length),
              mr->lkey};
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = opcode;
  wr.send_flags = flags;
  wr.imm_data = imm;
  wr.wr.rdma.remote_addr = remote_addr;
  wr.wr.rdma.rkey = rkey;
  ibv_send_wr* bad = nullptr;
  const int result = api.post_send(qp, &wr, &bad);
  if (result != 0) {
    EXPECT_EQ(bad, &wr);
  }
  return result;
}

std::vector<ibv_wc> Endpoint::poll(size_t count, std::chrono::milliseconds timeout) {
  std::vector<ibv_wc> got;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (got.size() < count && std::chrono::steady_clock::now() < deadline) {
    ibv_wc wc[8];
    const int n = api.poll_cq(cq, 8, wc);
    if (n < 0) {
      ADD_FAILURE() << "poll_cq failed: " << soft_verbs_last_error();
      break;
    }
    got.insert(got.end(), wc, wc + n);
    if (n == 0) std::this_thread::yield();
  }
  return got;
}

std::vector<ibv_wc> Endpoint::poll_for(std::chrono::milliseconds duration) {
  std::vector<ibv_wc> got;
  const auto until = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < until) {
    ibv_wc wc[8];
    const int n = api.poll_cq(cq, 8, wc);
    if (n > 0) got.insert(got.end(), wc, wc + n);
    std::this_thread::yield();
  }
  return got;
}

TestRoom TestRoom::for_current_test() {
  if (is_rank_process()) return of_this_rank();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  TestRoom room;
  room.path_ =
      ::testing::TempDir() + "soft_verbs_rooms/" + info->test_suite_name() + "." + info->name();
  fs::remove_all(room.path_);
  fs::create_directories(room.path_ + "/exchange");
  return room;
}

TestRoom TestRoom::of_this_rank() {
  TestRoom room;
  const char* fabric = std::getenv("WEFT_TEST_SOFT_VERBS");
  room.path_ = fabric ? fs::path(fabric).parent_path().string() : "";
  return room;
}

RunOptions TestRoom::rank_options() const {
  RunOptions options;
  options.timeout = std::chrono::seconds(30);
  options.env["WEFT_TEST_SOFT_VERBS"] = fabric();
  return options;
}

std::vector<std::string> TestRoom::fabric_files() const {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(fabric(), error)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void TestRoom::put(const std::string& name, const std::string& value) const {
  const std::string final_path = path_ + "/exchange/" + name;
  const std::string temporary = final_path + ".tmp" + std::to_string(getpid());
  std::ofstream(temporary) << value;
  fs::rename(temporary, final_path);
}

std::string TestRoom::get(const std::string& name) const {
  const std::string file = path_ + "/exchange/" + name;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(file);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    }
    std::this_thread::sleep_for(200us);
  }
  ADD_FAILURE() << "nobody published " << name << " within 10 s";
  return "";
}

EndpointAddress connect_to_other_rank(const TestRoom& room, int rank, Endpoint& me) {
  room.put("endpoint" + std::to_string(rank), me.address().text());
  const auto peer = EndpointAddress::parse(room.get("endpoint" + std::to_string(1 - rank)));
  me.connect(peer);
  return peer;
}

std::string describe(const ibv_wc& wc) {
  char text[200];
  std::snprintf(text, sizeof text, "%s wr_id %llu opcode %d byte_len %u qp_num %u src_qp %u",
                wc_status_name(wc.status), static_cast<unsigned long long>(wc.wr_id), wc.opcode,
                wc.byte_len, wc.qp_num, wc.src_qp);
  return text;
}

}  // namespace weft::testing
