/*
 * A user-defined reduction (new Op(function, commute)). Override one of the
 * two call methods: the ByteBuffer form gets the native memory directly (in
 * native byte order); by default it copies into arrays of the datatype's base
 * type and calls the Object form, then copies the result back.
 */
package mpi;

import java.nio.*;

public abstract class UserFunction {
    public void call(Object inVec, Object inOutVec, int count, Datatype datatype) throws MPIException {
        throw MPIException.unsupported("UserFunction.call(Object, Object, int, Datatype) (override it)");
    }

    public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype datatype) throws MPIException {
        int n = count * datatype.getExtent();
        switch (datatype.baseType) {
        case Datatype.BYTE: case Datatype.PACKED: case Datatype.BOOLEAN: {
            byte[] a = new byte[n], b = new byte[n];
            in.get(a); inOut.get(b);
            call(a, b, count, datatype);
            inOut.clear(); inOut.put(b);
            break;
        }
        case Datatype.CHAR: {
            char[] a = new char[n], b = new char[n];
            in.asCharBuffer().get(a); inOut.asCharBuffer().get(b);
            call(a, b, count, datatype);
            inOut.asCharBuffer().put(b);
            break;
        }
        case Datatype.SHORT: {
            short[] a = new short[n], b = new short[n];
            in.asShortBuffer().get(a); inOut.asShortBuffer().get(b);
            call(a, b, count, datatype);
            inOut.asShortBuffer().put(b);
            break;
        }
        case Datatype.INT: {
            int[] a = new int[n], b = new int[n];
            in.asIntBuffer().get(a); inOut.asIntBuffer().get(b);
            call(a, b, count, datatype);
            inOut.asIntBuffer().put(b);
            break;
        }
        case Datatype.LONG: {
            long[] a = new long[n], b = new long[n];
            in.asLongBuffer().get(a); inOut.asLongBuffer().get(b);
            call(a, b, count, datatype);
            inOut.asLongBuffer().put(b);
            break;
        }
        case Datatype.FLOAT: {
            float[] a = new float[n], b = new float[n];
            in.asFloatBuffer().get(a); inOut.asFloatBuffer().get(b);
            call(a, b, count, datatype);
            inOut.asFloatBuffer().put(b);
            break;
        }
        case Datatype.DOUBLE: {
            double[] a = new double[n], b = new double[n];
            in.asDoubleBuffer().get(a); inOut.asDoubleBuffer().get(b);
            call(a, b, count, datatype);
            inOut.asDoubleBuffer().put(b);
            break;
        }
        default:
            throw new MPIException(MPI.ERR_TYPE, MPI.ERR_TYPE, "user operation: unsupported datatype");
        }
    }
}
