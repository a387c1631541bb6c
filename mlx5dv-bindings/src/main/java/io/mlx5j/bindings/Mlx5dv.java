// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U64;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;

/**
 * Downcalls to the functions libmlx5 exports (rdma-core 44); see {@link Verbs} for the conventions.
 *
 * <p>Thread model: stateless; any thread may call these, with the thread safety the C function itself documents.
 */
public final class Mlx5dv
{
    private static final Linker.Option[] NONE = {};
    private static final Linker.Option[] CAPTURE = {CallState.OPTION};
    private static final Linker.Option[] CRITICAL = {Linker.Option.critical(false)};
    private static final Linker.Option[] CAPTURE_CRITICAL = {CallState.OPTION, Linker.Option.critical(false)};

    private Mlx5dv()
    {
    }

    private static final class mlx5dv_init_obj$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, U64);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.mlx5("mlx5dv_init_obj"), DESC, NONE);
    }

    /**
     * int mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type): fills the out structs from the provider's own
     * objects; 0 or errno (EOPNOTSUPP for a non-mlx5 object).
     *
     * @param obj the C argument {@code struct mlx5dv_obj *obj}
     * @param obj_type the C argument {@code uint64_t obj_type}
     * @return what {@code mlx5dv_init_obj} returns ({@code int}); see man mlx5dv_init_obj(3)
     */
    public static int mlx5dv_init_obj(final MemorySegment obj, final long obj_type)
    {
        try
        {
            return (int) mlx5dv_init_obj$.HANDLE.invokeExact(obj, obj_type);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_init_obj", ex);
        }
    }

    private static final class mlx5dv_create_cq$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.mlx5("mlx5dv_create_cq"), DESC, CAPTURE);
    }

    /**
     * struct ibv_cq_ex *mlx5dv_create_cq(struct ibv_context *, struct ibv_cq_init_attr_ex *,
     * struct mlx5dv_cq_init_attr *): the way to ask for 128-byte CQEs. NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param cq_attr the C argument {@code struct ibv_cq_init_attr_ex *cq_attr}
     * @param mlx5_cq_attr the C argument {@code struct mlx5dv_cq_init_attr *mlx5_cq_attr}
     * @return what {@code mlx5dv_create_cq} returns ({@code struct ibv_cq_ex *}); see man mlx5dv_create_cq(3)
     */
    public static MemorySegment mlx5dv_create_cq(final MemorySegment callState, final MemorySegment context,
        final MemorySegment cq_attr, final MemorySegment mlx5_cq_attr)
    {
        try
        {
            return (MemorySegment) mlx5dv_create_cq$.HANDLE.invokeExact(callState, context, cq_attr, mlx5_cq_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_create_cq", ex);
        }
    }

    private static final class mlx5dv_create_wq$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.mlx5("mlx5dv_create_wq"), DESC, CAPTURE);
    }

    /**
     * struct ibv_wq *mlx5dv_create_wq(struct ibv_context *, struct ibv_wq_init_attr *, struct mlx5dv_wq_init_attr *):
     * a receive WQ, striding with MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ (NULL attributes: a plain WQ, what
     * ibv_create_wq makes). NULL + errno on failure. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param wq_init_attr the C argument {@code struct ibv_wq_init_attr *wq_init_attr}
     * @param mlx5_wq_attr the C argument {@code struct mlx5dv_wq_init_attr *mlx5_wq_attr}
     * @return what {@code mlx5dv_create_wq} returns ({@code struct ibv_wq *})
     */
    public static MemorySegment mlx5dv_create_wq(final MemorySegment callState, final MemorySegment context,
        final MemorySegment wq_init_attr, final MemorySegment mlx5_wq_attr)
    {
        try
        {
            return (MemorySegment) mlx5dv_create_wq$.HANDLE.invokeExact(callState, context, wq_init_attr, mlx5_wq_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_create_wq", ex);
        }
    }

    private static final class mlx5dv_create_qp$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.mlx5("mlx5dv_create_qp"), DESC, CAPTURE);
    }

    /**
     * struct ibv_qp *mlx5dv_create_qp(struct ibv_context *, struct ibv_qp_init_attr_ex *, struct mlx5dv_qp_init_attr
     * *): a QP with provider attributes; with MLX5DV_QP_INIT_ATTR_MASK_DC (and qp_type IBV_QPT_DRIVER) a DCI or DCT.
     * NULL + errno on failure. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param context the C argument {@code struct ibv_context *context}
     * @param qp_attr the C argument {@code struct ibv_qp_init_attr_ex *qp_attr}
     * @param mlx5_qp_attr the C argument {@code struct mlx5dv_qp_init_attr *mlx5_qp_attr}
     * @return what {@code mlx5dv_create_qp} returns ({@code struct ibv_qp *})
     */
    public static MemorySegment mlx5dv_create_qp(final MemorySegment callState, final MemorySegment context,
        final MemorySegment qp_attr, final MemorySegment mlx5_qp_attr)
    {
        try
        {
            return (MemorySegment) mlx5dv_create_qp$.HANDLE.invokeExact(callState, context, qp_attr, mlx5_qp_attr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_create_qp", ex);
        }
    }

    private static final class mlx5dv_qp_ex_from_ibv_qp_ex$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.mlx5("mlx5dv_qp_ex_from_ibv_qp_ex"), DESC,
            NONE);
    }

    /**
     * struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp): the mlx5 setters of a QP created with
     * send ops flags; pure user-space.
     *
     * @param qpx the C argument {@code struct ibv_qp_ex *qp}
     * @return what {@code mlx5dv_qp_ex_from_ibv_qp_ex} returns ({@code struct mlx5dv_qp_ex *})
     */
    public static MemorySegment mlx5dv_qp_ex_from_ibv_qp_ex(final MemorySegment qpx)
    {
        try
        {
            return (MemorySegment) mlx5dv_qp_ex_from_ibv_qp_ex$.HANDLE.invokeExact(qpx);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_qp_ex_from_ibv_qp_ex", ex);
        }
    }

    private static final class WrSetDcAddrFn
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER, C_POINTER, C_INT, U64);
        static final MethodHandle HANDLE = NativeLibs.downcall(DESC);
    }

    /**
     * {@code mlx5dv_wr_set_dc_addr} (mlx5dv.h static inline): calls {@code mqp->wr_set_dc_addr}, the target of the
     * current ibv_wr_* WQE of a DCI.
     *
     * @param mqp the C argument {@code struct mlx5dv_qp_ex *mqp}
     * @param ah the C argument {@code struct ibv_ah *ah}
     * @param remoteDctn the C argument {@code uint32_t remote_dctn}
     * @param remoteDcKey the C argument {@code uint64_t remote_dc_key}
     */
    public static void mlx5dv_wr_set_dc_addr(final MemorySegment mqp, final MemorySegment ah, final int remoteDctn,
        final long remoteDcKey)
    {
        final MemorySegment fn = mqp.reinterpret(Mlx5dvQpEx.LAYOUT.byteSize())
            .get(C_POINTER, Mlx5dvQpEx.WR_SET_DC_ADDR_OFFSET);
        try
        {
            WrSetDcAddrFn.HANDLE.invokeExact(fn, mqp, ah, remoteDctn, remoteDcKey);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_wr_set_dc_addr", ex);
        }
    }

    private static final class mlx5dv_is_supported$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_BOOLEAN, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.mlx5("mlx5dv_is_supported"), DESC, CRITICAL);
    }

    /**
     * bool mlx5dv_is_supported(struct ibv_device *device): pure user-space check that the device is driven by libmlx5.
     *
     * @param device the C argument {@code struct ibv_device *device}
     * @return what {@code mlx5dv_is_supported} returns ({@code bool}); see man mlx5dv_is_supported(3)
     */
    public static boolean mlx5dv_is_supported(final MemorySegment device)
    {
        try
        {
            return (boolean) mlx5dv_is_supported$.HANDLE.invokeExact(device);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_is_supported", ex);
        }
    }

    private static final class mlx5dv_query_device$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.mlx5("mlx5dv_query_device"), DESC, NONE);
    }

    /**
     * int mlx5dv_query_device(struct ibv_context *, struct mlx5dv_context *): the mlx5-specific capabilities; the
     * caller sets comp_mask to the MLX5DV_CONTEXT_MASK_* parts it wants, libmlx5 keeps the bits of those it filled.
     * 0 or an errno value (EOPNOTSUPP on a non-mlx5 context).
     *
     * @param context the C argument {@code struct ibv_context *ctx_in}
     * @param attrsOut the C argument {@code struct mlx5dv_context *attrs_out}
     * @return what {@code mlx5dv_query_device} returns ({@code int}); see man mlx5dv_query_device(3)
     */
    public static int mlx5dv_query_device(final MemorySegment context, final MemorySegment attrsOut)
    {
        try
        {
            return (int) mlx5dv_query_device$.HANDLE.invokeExact(context, attrsOut);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_query_device", ex);
        }
    }

    private static final class mlx5dv_get_clock_info$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.mlx5("mlx5dv_get_clock_info"), DESC, NONE);
    }

    /**
     * int mlx5dv_get_clock_info(struct ibv_context *, struct mlx5dv_clock_info *): a consistent copy of the clock-info
     * page; 0, EINVAL when the page is not mapped, EBUSY when the kernel kept updating it, EOPNOTSUPP for non-mlx5.
     *
     * @param context the C argument {@code struct ibv_context *context}
     * @param clockInfo the C argument {@code struct mlx5dv_clock_info *clock_info}
     * @return what {@code mlx5dv_get_clock_info} returns ({@code int}); see man mlx5dv_get_clock_info(3)
     */
    public static int mlx5dv_get_clock_info(final MemorySegment context, final MemorySegment clockInfo)
    {
        try
        {
            return (int) mlx5dv_get_clock_info$.HANDLE.invokeExact(context, clockInfo);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: mlx5dv_get_clock_info", ex);
        }
    }
}
