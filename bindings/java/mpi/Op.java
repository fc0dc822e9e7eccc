/*
 * A reduction operation: the predefined ones (MPI.SUM, ...) or a user
 * function. Canal calls a user function through one of 32 native
 * trampolines (MPI_User_function has no user argument), so at most 32 user
 * operations exist at a time; free() returns the slot.
 */
package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

public final class Op implements Freeable {
    long handle;
    private int slot = -1;
    private static final UserFunction[] slots = new UserFunction[32];

    Op(long handle) { this.handle = handle; }

    public Op(UserFunction function, boolean commute) throws MPIException {
        MPI.check();
        synchronized (slots) {
            for (int i = 0; i < slots.length; i++)
                if (slots[i] == null) {
                    slot = i;
                    break;
                }
            if (slot < 0)
                throw new MPIException(MPI.ERR_OTHER, MPI.ERR_OTHER,
                        "MPI_Op_create: at most 32 user operations may exist at a time in Canal's Java binding");
            slots[slot] = function;
        }
        try {
            handle = Jni.opCreate(slot, commute);
        } catch (MPIException e) {
            synchronized (slots) { slots[slot] = null; }
            throw e;
        }
    }

    /** Called by the native trampoline of slot. */
    static void callUser(int slot, ByteBuffer in, ByteBuffer inOut, int count, long type) throws MPIException {
        UserFunction f;
        synchronized (slots) { f = slots[slot]; }
        Datatype t = Datatype.lookup(type);
        if (f == null || t == null)
            throw new MPIException(MPI.ERR_OP, MPI.ERR_OP, "user operation: unknown operation or datatype");
        f.call(in.order(ByteOrder.nativeOrder()), inOut.order(ByteOrder.nativeOrder()), count, t);
    }

    boolean isUser() { return slot >= 0; }

    public boolean isCommutative() throws MPIException { MPI.check(); return Jni.opQuery(1, handle) != 0; }

    @Override public void free() throws MPIException {
        MPI.check();
        if (slot < 0)
            throw new MPIException(MPI.ERR_OP, MPI.ERR_OP, "MPI_Op_free: cannot free a predefined operation");
        handle = Jni.opQuery(0, handle);
        synchronized (slots) { slots[slot] = null; }
        slot = -1;
    }

    public boolean isNull() { return handle == MPI.OP_NULL; }
}
