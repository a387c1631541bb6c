/* SPDX-License-Identifier: Apache-2.0 */
/*
 * emu_objects.h - the object model shared by the emulator's uverbs "kernel" (src/kernel, "K" below)
 * and its device engine (src/engine, "E"). The kernel part owns it; the engine includes it and never edits it.
 *
 * Two kinds of state:
 *  1. Process-local objects (struct emu_ctx, emu_pd, emu_mr, emu_cq, emu_qp, emu_srq, emu_ah, emu_comp_channel).
 *     They live in ordinary heap memory of the process that created them, exactly like the kernel's
 *     per-file uobjects. Every address stored in them (buffers, doorbell records, UAR pages) is a virtual
 *     address of THIS process, so the engine can dereference it directly.
 *  2. A fabric-wide registry in process-shared memory (struct emu_registry, file /dev/shm/<MLX5EMU_FABRIC>),
 *     so that two separately launched processes can find each other's QPs by QPN/LID/GID.
 *
 * Locking rules (read these before touching any object from an engine thread):
 *  - emu_lock()/emu_unlock() protect all object lists and every field K writes after creation
 *    (QP attributes on modify, CQ buffer on resize, state). It is a recursive process-private mutex.
 *  - Engine hooks (engine_hooks.h) are called WITHOUT emu_lock held, so a hook may take emu_lock itself and may
 *    wait for an engine thread that is blocked on emu_lock.
 *  - *_created / emu_engine_mr_registered: the object is complete and already findable with the emu_find_* functions.
 *  - *_destroying / emu_engine_mr_deregistering: the object is already unlinked (emu_find_* no longer returns it);
 *    K frees it right after the hook returns, so the engine must drop every reference before returning.
 *  - emu_engine_qp_modified: called after K validated the transition and applied every attribute under emu_lock.
 *  - Object fields marked [engine] belong to the engine: K initialises them to 0/NULL and never reads them.
 */
#ifndef MLX5EMU_EMU_OBJECTS_H
#define MLX5EMU_EMU_OBJECTS_H

#include <stdint.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of the emulated device; K reports them in QUERY_DEVICE and enforces them on create. */
#define EMU_MAX_DEVICES        8
#define EMU_MAX_UAR_PAGES      256      /* static UAR pages per context (tot_bfregs / 2); libmlx5 MLX5_MAX_UARS */
/* Dynamic UAR pages per context, mapped one by one with MLX5_IB_MMAP_ALLOC_WC (libmlx5's thread domains and
 * mlx5dv_devx_alloc_uar on a context with static bfregs): Linux calc_dynamic_bfregs() gives MLX5_MAX_DYN_BFREGS
 * (1024) bfregs on 4 KiB pages, 2 per page. They follow the static pages in the memfd and the alias. */
#define EMU_DYN_UAR_PAGES      512
#define EMU_UAR_PAGE_SIZE      4096
#define EMU_BF_OFFSET          0x800    /* first BlueFlame register in a UAR page */
#define EMU_BF_REG_SIZE        512      /* bf_reg_size answered in GET_CONTEXT: two 256-byte halves */
#define EMU_CQ_ARM_DB_OFFSET   0x20     /* CQ arm doorbell in a UAR page (libmlx5 MLX5_CQ_DOORBELL) */
#define EMU_GID_TBL_LEN_IB     128
#define EMU_GID_TBL_LEN_ETH    256
#define EMU_SEND_WQE_BB        64       /* SQ stride */
#define EMU_PORT_GIDS          16       /* non-empty GID entries a port can have (2 + 2 per IP address) */

/* Link layer of a port (values as IBV_LINK_LAYER_*). */
enum emu_link_layer { EMU_LINK_IB = 1, EMU_LINK_ETH = 2 };

/* QP types as enum ibv_qp_type / ib_uverbs values. */
enum emu_qp_type { EMU_QPT_RC = 2, EMU_QPT_UC = 3, EMU_QPT_UD = 4, EMU_QPT_RAW = 8 /* IBV_QPT_RAW_PACKET */,
		   EMU_QPT_XRC_INI = 9 /* IBV_QPT_XRC_SEND */, EMU_QPT_XRC_TGT = 10 /* IBV_QPT_XRC_RECV */ };
enum emu_dc_type { EMU_DC_NONE = 0, EMU_DC_DCI, EMU_DC_DCT };

/* QP states as enum ibv_qp_state. */
enum emu_qp_state {
	EMU_QPS_RESET = 0, EMU_QPS_INIT = 1, EMU_QPS_RTR = 2, EMU_QPS_RTS = 3,
	EMU_QPS_SQD = 4, EMU_QPS_SQE = 5, EMU_QPS_ERR = 6
};

struct emu_ctx;
struct emu_rss_qp;
struct emu_xrcd;
struct emu_async_queue;

/* One gid table entry as the sysfs tree describes it (index 0..gid_tbl_len-1; all-zero = empty). */
struct emu_gid { uint8_t raw[16]; };

/* The static facts of an emulated device/port, identical in every process of the fabric
 * (derived from the device index and MLX5EMU_LINK, exactly like the launcher's sysfs tree). */
struct emu_port_info {
	int       dev_index;      /* N of mlx5_N */
	int       link_layer;     /* enum emu_link_layer */
	uint16_t  lid;            /* IB: dev_index + 1; Ethernet: 0 */
	uint8_t   mac[6];         /* Ethernet only */
	uint64_t  node_guid;      /* host order */
	uint64_t  port_guid;      /* host order */
	int       num_gids;       /* non-empty entries at the start of gid[] */
	struct emu_gid gid[EMU_PORT_GIDS]; /* IB: [0] = fe80::port_guid. Ethernet: [0] RoCE v1, [1] RoCE v2 (same
	                          fe80:: GID), then a v1 and a v2 entry per IP address the port owns (see cm_addr.c) */
	uint8_t   gid_type[EMU_PORT_GIDS]; /* 0 = IB/RoCE v1, 1 = RoCE v2 (IBV_GID_TYPE_*) */
};

struct emu_pd {
	struct emu_pd  *next;
	struct emu_ctx *ctx;
	uint32_t        handle;   /* uverbs handle, per context */
	uint32_t        pdn;      /* fabric-unique */
};

struct emu_mr {
	struct emu_mr  *next;
	struct emu_ctx *ctx;
	struct emu_pd  *pd;
	uint32_t        handle;
	uint32_t        lkey;     /* fabric-unique; rkey == lkey as on mlx5 */
	uint32_t        rkey;
	uint64_t        addr;     /* start VA (== iova for ibv_reg_mr) */
	uint64_t        length;
	uint32_t        access;   /* IBV_ACCESS_* as given to reg_mr */
	void           *engine;   /* [engine] */
};

struct emu_comp_channel {
	struct emu_comp_channel *next;
	struct emu_ctx *ctx;
	int             read_fd;  /* what the user got (the channel fd) */
	int             write_fd; /* engine writes struct ib_uverbs_comp_event_desc here (O_NONBLOCK) */
	int             keep_fd;  /* K's duplicate of the read end, so engine writes never raise SIGPIPE; K only */
};

struct emu_cq {
	struct emu_cq  *next;
	struct emu_ctx *ctx;
	uint32_t        handle;
	uint32_t        cqn;          /* fabric-unique */
	uint64_t        buf;          /* VA of the CQE ring */
	uint32_t        cqe_cnt;      /* number of CQEs in the ring, power of 2 */
	uint32_t        cqe_size;     /* 64 or 128 */
	uint64_t        dbrec;        /* VA: be32 [0] = consumer index (24 bits), [1] = arm sn/cmd/ci */
	int             comp_fd;      /* write end of the completion channel, or -1 */
	uint64_t        user_handle;  /* cq_handle from create; goes into the comp event */
	uint32_t        flags;        /* mlx5_ib_create_cq.flags (MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD) */
	uint32_t        ibv_flags;    /* IB_UVERBS_CQ_FLAGS_* of EX_CREATE_CQ (IGNORE_OVERRUN) */
	uint8_t         comp_format;  /* MLX5_IB_CQE_RES_FORMAT_* of a compressing CQ (cqe_comp_en), 0 if none */
	uint64_t        old_buf;      /* during emu_engine_cq_resized only: the ring being replaced ... */
	uint32_t        old_cqe_cnt;  /* ... its size ... */
	uint32_t        old_cqe_size; /* ... and its CQE size */
	uint32_t        uar_page;     /* UAR page index libmlx5 rings the arm doorbell through (0 here) */
	uint32_t        comp_events;  /* comp events reported (for ibv_destroy_cq's comp_events_reported) */
	int             kbusy;        /* K only: a command is using it outside emu_lock (destroy is then EBUSY) */
	uint32_t        async_events;
	void           *engine;       /* [engine] */
};

struct emu_srq {
	struct emu_srq *next;
	struct emu_ctx *ctx;
	struct emu_pd  *pd;
	struct emu_cq  *cq;           /* NULL for basic SRQs */
	uint32_t        handle;
	uint32_t        srqn;         /* fabric-unique */
	uint64_t        buf;          /* VA of the WQE ring */
	uint32_t        wqe_cnt;      /* power of 2 */
	uint32_t        wqe_shift;    /* log2 stride */
	uint64_t        dbrec;        /* VA: be32 [0] = wqe counter */
	uint32_t        uidx;         /* user index (cqe_version 1) */
	uint32_t        max_sge;
	uint32_t        srq_limit;    /* armed limit (0 = not armed) */
	int             kbusy;        /* K only: a command is using it outside emu_lock (destroy is then EBUSY) */
	uint64_t        user_handle;
	uint32_t        async_events;
	void           *engine;       /* [engine] */
	uint32_t        srq_type;     /* IBV_SRQT_BASIC or IBV_SRQT_XRC */
	uint32_t        xrcdn;        /* XRC SRQ: its domain's number (fabric-unique, shared by every opener) */
	struct emu_xrcd *xrcd;        /* K only: the XRCD handle it was created through */
};

/* The address vector of a QP path (primary only; alternate paths are rejected). */
struct emu_path {
	uint16_t dlid;
	uint8_t  sl;
	uint8_t  src_path_bits;
	uint8_t  static_rate;
	uint8_t  is_global;
	uint8_t  port_num;
	uint8_t  sgid_index;
	uint8_t  hop_limit;
	uint8_t  traffic_class;
	uint32_t flow_label;
	uint8_t  dgid[16];
	uint8_t  dmac[6];             /* RoCE: resolved from dgid (link-local GID -> MAC via EUI-64) */
};

struct emu_qp {
	struct emu_qp  *next;
	struct emu_qp  *hash_next;     /* the ctx's qp_hash bucket (src/kernel/handles.c) */
	struct emu_ctx *ctx;
	struct emu_pd  *pd;
	struct emu_cq  *send_cq;
	struct emu_cq  *recv_cq;
	struct emu_srq *srq;          /* NULL unless created with an SRQ */
	uint32_t        handle;
	uint32_t        qpn;          /* fabric-unique, 24 bits */
	int             type;         /* enum emu_qp_type */
	int             state;        /* enum emu_qp_state */
	uint32_t        uidx;         /* user index from mlx5_ib_create_qp (cqe_version 1) */
	uint32_t        create_flags; /* mlx5_ib_create_qp.flags: MLX5_QP_FLAG_SCATTER_CQE, ... */
	uint32_t        ibv_create_flags; /* ib_uverbs_create_qp create_flags (ex) */
	int             sq_sig_all;
	/* caps as granted by create */
	uint32_t        max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data;

	uint64_t        buf;          /* VA of the WQ buffer: RQ at offset 0, SQ after it */
	uint64_t        sq_buf;       /* buf + (rq_wqe_cnt << rq_wqe_shift) */
	uint32_t        sq_wqe_cnt;   /* power of 2, stride 64 (EMU_SEND_WQE_BB) */
	uint64_t        rq_buf;       /* == buf */
	uint32_t        rq_wqe_cnt;   /* 0 with an SRQ */
	uint32_t        rq_wqe_shift;
	uint64_t        dbrec;        /* VA: be32 [0] = RQ counter, [1] = SQ counter */
	uint32_t        bfreg_index;  /* bfreg answered in create_qp_resp */
	uint32_t        uar_page;     /* UAR page of that bfreg */
	uint32_t        bf_offset;    /* BlueFlame register offset in that page: 0x800 + k*0x200 */

	/* attributes set by modify_qp (valid once their mask bit has been applied) */
	uint32_t        attr_mask_seen;   /* OR of every IBV_QP_* mask applied so far */
	uint32_t        qkey;
	uint32_t        rq_psn;
	uint32_t        sq_psn;
	uint32_t        dest_qp_num;
	uint32_t        qp_access_flags;
	uint16_t        pkey_index;
	uint8_t         port_num;
	uint8_t         path_mtu;         /* enum ibv_mtu (1=256 .. 5=4096) */
	uint8_t         timeout;
	uint8_t         retry_cnt;
	uint8_t         rnr_retry;
	uint8_t         min_rnr_timer;
	uint8_t         max_rd_atomic;
	uint8_t         max_dest_rd_atomic;
	uint8_t         sq_draining;
	uint8_t         en_sqd_async_notify;
	struct emu_path path;

	uint64_t        user_handle;
	uint32_t        async_events;
	int             reg_slot;         /* index in the fabric registry's QP directory */
	int             kbusy;            /* K only: a command is using it outside emu_lock (destroy is then EBUSY) */
	uint32_t        rate_limit;       /* kbps, IBV_QP_RATE_LIMIT (packet pacing of raw packet QPs); 0 = line rate */
	struct emu_rss_qp *rss;           /* RSS QP (rss_wq.h): its indirection table and hash; NULL otherwise */
	/* DC (src/kernel/cmd_dc.c): EMU_DC_DCI or EMU_DC_DCT for an mlx5dv_create_qp DC QP (type is EMU_QPT_RC then,
	 * the transport its packets use), else EMU_DC_NONE; a DCT's access key (mlx5_ib_create_qp.access_key) */
	int             dc_type;
	uint64_t        dc_key;
	void           *engine;           /* [engine] */
	/* XRC (cmd_xrcd.c). A TGT QP has no rings, PD or CQs: what it receives goes to the XRC SRQ each packet names,
	 * which must belong to domain xrcdn; dbrec then points at kdbrec, which stays 0. */
	uint32_t        xrcdn;
	struct emu_xrcd *xrcd;            /* K only: the XRCD handle a TGT QP was created (or opened) through */
	/* K only: an OPEN_QP handle (ibv_open_qp) of TGT QP open_qpn, in this process or another one of the domain.
	 * It is no QP of its own: qpn 0 (emu_find_qp never finds it), no engine, no registry entry; QUERY_QP and
	 * MODIFY_QP through it act on the QP when this process has it (cmd_xrcd.c emu_xrc_open_target). */
	int             xrc_open;
	uint32_t        open_qpn;
	uint32_t        kdbrec[2];
};

struct emu_ah {
	struct emu_ah  *next;
	struct emu_ctx *ctx;
	struct emu_pd  *pd;
	uint32_t        handle;
	struct emu_path path;
};

/* One open command fd == one ibv_context. */
struct emu_ctx {
	struct emu_ctx *next;
	pid_t           owner_pid;     /* process that opened it; inherited copies after fork are inert */
	int             cmd_fd;        /* the fd libibverbs writes commands to (a /dev/null fd) */
	int             fd_refs;       /* fds (dup/dup2/fcntl copies) referring to this context; K only */
	int             dev_index;     /* N of uverbsN / mlx5_N */
	const struct emu_port_info *port; /* port 1 of this device (single-port devices) */
	int             async_read_fd; /* given to the user as the async fd */
	int             async_write_fd;/* engine writes struct ib_uverbs_async_event_desc here (O_NONBLOCK) */
	int             async_keep_fd; /* K's duplicate of the read end (no SIGPIPE after the user closed it); K only */
	struct emu_async_queue *async_q; /* the async event file behind async_read_fd (async_event.c); K only */
	int             have_context;  /* GET_CONTEXT done */
	uint32_t        tot_bfregs;    /* as answered in GET_CONTEXT */
	uint32_t        num_low_lat_bfregs; /* dedicated BlueFlame registers requested; K only */
	uint16_t        bfreg_users[2 * EMU_MAX_UAR_PAGES]; /* QPs per (non-gross) bfreg, as the kernel counts; K only */
	uint8_t         cqe_version;   /* 0 or 1, as answered in GET_CONTEXT */
	uint32_t        num_uar_pages; /* tot_bfregs / 2 */
	int             uar_memfd;     /* backs every UAR page of this context */
	uint8_t        *uar_alias;     /* K's own mapping of all UAR pages ((num_uar_pages + EMU_DYN_UAR_PAGES) * 4096,
	                                  dynamic ones included), valid until close:
	                                  the engine watches doorbells here, not at the user's VA which may be unmapped */
	void           *uar_user_va[EMU_MAX_UAR_PAGES + EMU_DYN_UAR_PAGES]; /* where the user mapped page i (NULL if
	                                  not mapped); dynamic page k is num_uar_pages + k */
	uint8_t         dyn_uar_mapped[EMU_DYN_UAR_PAGES]; /* ALLOC_WC page k exists (kernel: sys_pages[] valid) */
	uint32_t        next_handle;
	struct emu_pd  *pds;
	struct emu_mr  *mrs;
	struct emu_cq  *cqs;
	struct emu_qp  *qps;
	/* the QPs by handle, handle & (EMU_QP_HASH - 1): handles are consecutive, so a bucket holds one QP in 1,024
	 * until far more exist (a ConnectX command's QP look-up does not grow with the QPs either) */
#define EMU_QP_HASH 1024
	struct emu_qp  *qp_hash[EMU_QP_HASH];
	struct emu_srq *srqs;
	struct emu_xrcd *xrcds;        /* K only: XRC domains opened through this context (cmd_xrcd.c) */
	struct emu_ah  *ahs;
	struct emu_comp_channel *channels;
	void           *engine;        /* [engine] */
};

/* ---- access for the engine (implemented in src/kernel) ---- */

/* Recursive mutex over every process-local object list and every field K mutates after creation. */
void emu_lock(void);
void emu_unlock(void);

/* Head of the list of live contexts of this process (walk with ->next, under emu_lock).
 * Inherited contexts (owner_pid != getpid(), after fork) are not on this list in the child. */
struct emu_ctx *emu_contexts(void);

/* Lookups over all live contexts of THIS process; call under emu_lock; NULL if absent. */
struct emu_qp  *emu_find_qp(uint32_t qpn);
struct emu_cq  *emu_find_cq(uint32_t cqn);
struct emu_srq *emu_find_srq(uint32_t srqn);
/* The process that has XRC SRQ srqn of domain xrcdn (src/kernel/cmd_xrcd.c, a fabric-wide directory): 1 and its pid
 * and registry process slot, 0 if no live process has it. Takes a process-shared lock: not under emu_lock. */
int emu_xrc_srq_owner(uint32_t srqn, uint32_t xrcdn, int32_t *pid, int *proc_slot);
/* An affiliated event of XRC TGT QP qp, for the handles of it this process opened (ibv_open_qp): the kernel hands
 * a TGT QP's events to every ib_qp opened on it (__ib_shared_qp_event_handler). Not under emu_lock. At most 16. */
void emu_xrc_tgt_event(const struct emu_qp *qp, uint32_t type);
/* The device moved XRC TGT QP qpn of this process to state (EMU_QPS_ERR): what other processes' QUERY_QP reads. */
void emu_xrc_tgt_state(uint32_t qpn, int state);
struct emu_mr  *emu_find_mr_lkey(uint32_t lkey);
struct emu_mr  *emu_find_mr_rkey(uint32_t rkey);

/* Static port facts of device dev_index (same in every process of the fabric), or NULL. */
const struct emu_port_info *emu_port_info(int dev_index);
/* Number of emulated devices (MLX5EMU_DEVICES). */
int emu_num_devices(void);

/* Queues an asynchronous event on ctx's async event file, as the kernel's ib_uverbs_async_handler does: element is
 * what the reader gets (the object's user_handle, or the port number for port events), obj_handle the uverbs handle
 * of the QP, CQ or SRQ the event type names (unused for port and device events). The object's events_reported
 * counts the event when the user reads it; events of an object destroyed before they were read are dropped, and so is
 * every event once the user closed the async fd. Never blocks; takes emu_lock. */
void emu_async_post(struct emu_ctx *ctx, uint32_t event_type, uint64_t element, uint32_t obj_handle);

/* Ports taken down with mlx5emu_port_set (the launcher's `mlx5emu port DEV PORT down`), fabric-wide: bit N is port 1
 * of mlx5_N. A down port sends and receives nothing. One relaxed load of the registry. */
uint32_t emu_ports_down(void);

/* Multicast: the QPNs attached (ATTACH_MCAST, any process of the fabric) to the group with this MGID; fills at
 * most max, returns how many. A UD send to QPN 0xffffff goes to each of them. */
#define EMU_MCAST_ATTACH_MAX 512
int emu_mcast_members(const uint8_t gid[16], uint32_t *qpns, int max);

/* Non-zero when MLX5EMU_LOG=1; emu_log prints one line "mlx5emu[pid]: ..." to stderr. */
extern int emu_log_enabled;
void emu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- fabric registry (process-shared, /dev/shm/<MLX5EMU_FABRIC>) ---- */

#define EMU_REG_MAGIC        0x31554d4535584c4dULL /* "MLX5EMU1" little-endian */
#define EMU_REG_VERSION      1
#define EMU_REG_MAX_PROCS    256
#define EMU_REG_QP_SLOTS     4096     /* QPN = (generation << 12) | slot; slot 0 and 1 never used (QP0/QP1) */
#define EMU_REG_SLOT_BITS    12

/* One process using the fabric. */
struct emu_reg_proc {
	_Atomic int32_t  pid;          /* 0 = free; reclaimable when kill(pid, 0) fails with ESRCH */
	_Atomic uint32_t alive;        /* 1 while the process runs (cleared at exit) */
	_Atomic uint32_t inbox;        /* [engine] the id of this process's live engine inbox (0 = none): a process
	                                  that closes its last context and opens another gets a new inbox, with a new id */
	uint32_t         reserved;
	_Atomic uint64_t engine_word[6]; /* [engine] free for the engine */
};

/* One QP directory entry; slot = qpn & (EMU_REG_QP_SLOTS - 1). Readers: use emu_reg_qp_get() for a consistent copy. */
struct emu_reg_qp {
	_Atomic uint32_t seq;          /* seqlock: odd while K is writing */
	uint32_t         qpn;          /* 0 = free */
	int32_t          pid;          /* owner process */
	int32_t          proc_slot;    /* index into procs[] of the owner */
	uint32_t         dev_index;
	uint8_t          port;
	uint8_t          type;         /* enum emu_qp_type */
	uint8_t          state;        /* enum emu_qp_state */
	uint8_t          link_layer;   /* enum emu_link_layer */
	uint16_t         lid;
	uint16_t         reserved;
	uint32_t         qkey;
	uint32_t         dest_qp_num;
	uint32_t         srqn;         /* 0 if no SRQ */
	uint8_t          gid[16];      /* port GID index 0 of the owner device */
	_Atomic uint64_t engine_word;  /* [engine] free for the engine (e.g. a wire id) */
};

struct emu_registry {
	uint64_t         magic;
	uint32_t         version;
	uint32_t         size;         /* sizeof(struct emu_registry) */
	pthread_mutex_t  lock;         /* PTHREAD_PROCESS_SHARED + robust; guards slot allocation and writes */
	_Atomic uint32_t next_qp_gen;  /* generation counter for QPN allocation */
	_Atomic uint32_t next_cqn;
	_Atomic uint32_t next_srqn;
	_Atomic uint32_t next_pdn;
	_Atomic uint32_t next_mkey;    /* lkey/rkey = (next_mkey++ << 8) | 8-bit tag */
	_Atomic uint32_t next_inbox_id; /* [engine] ids of engine inboxes (procs[].inbox), never 0 */
	_Atomic uint32_t ports_down;   /* bit N: port 1 of mlx5_N is down (port.c; 0, all up, in a new registry) */
	_Atomic uint32_t port_seq;     /* bumped with every change of ports_down; a shared futex every process waits on */
	struct emu_reg_proc procs[EMU_REG_MAX_PROCS];
	struct emu_reg_qp   qps[EMU_REG_QP_SLOTS];
};

/* The mapped registry (NULL before the first context is opened), and this process's procs[] slot (-1 if none). */
struct emu_registry *emu_registry(void);
int emu_reg_self_slot(void);
/* Consistent copy of the entry for qpn; returns 0 on success, -1 if no live QP has that number (never created,
 * destroyed, or owned by a process that no longer exists). */
int emu_reg_qp_get(uint32_t qpn, struct emu_reg_qp *out);

#ifdef __cplusplus
}
#endif
#endif
