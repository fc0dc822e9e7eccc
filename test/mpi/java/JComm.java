/* Communicator and group management, attributes, Info. */
import mpi.*;

public class JComm {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank(), size = w.getSize();
        Intracomm d = w.dup();
        check(Comm.compare(w, d) == MPI.CONGRUENT && d.getSize() == size, "dup");
        d.setName("my-dup");
        check("my-dup".equals(d.getName()), "name");
        Intracomm half = w.split(rank % 2, -rank);
        check(half.getSize() == (size + 1 - rank % 2) / 2, "split size");
        check(half.getRank() == (half.getSize() - 1 - rank / 2), "split key order");
        Group g = w.getGroup();
        Group evens = g.incl(new int[] { 0 });
        check(evens.getSize() == 1 && (rank == 0 ? evens.getRank() == 0 : evens.getRank() == MPI.UNDEFINED), "incl");
        Group rest = g.excl(new int[] { 0 });
        check(rest.getSize() == size - 1, "excl");
        int[] tr = Group.translateRanks(g, new int[] { size - 1 }, rest);
        check(tr[0] == (size > 1 ? size - 2 : MPI.UNDEFINED), "translateRanks " + tr[0]);
        check(Group.compare(g, Group.union(evens, rest)) != MPI.UNEQUAL, "union");
        Intracomm c0 = w.create(evens);
        check(rank == 0 ? c0.getSize() == 1 : c0.isNull(), "create");
        if (!c0.isNull()) c0.free();
        int key = Comm.createKeyval();
        d.setAttr(key, "hello");
        check("hello".equals(d.getAttr(key)), "user attribute");
        d.deleteAttr(key);
        check(d.getAttr(key) == null, "deleted attribute");
        Comm.freeKeyval(key);
        check(((Integer) w.getAttr(MPI.TAG_UB)) >= 32767, "TAG_UB");
        Info info = new Info();
        info.set("key1", "v1");
        info.set("key2", "v2");
        check(info.size() == 2 && "v1".equals(info.get("key1")) && info.get("nope") == null, "info");
        Info i2 = info.dup();
        info.delete("key1");
        check(info.size() == 1 && i2.size() == 2 && i2.getKey(0) != null, "info dup/delete");
        info.free();
        i2.free();
        g.free(); evens.free(); rest.free();
        half.free();
        d.free();
        check(d.isNull(), "free");
        check(!w.isInter() && MPI.COMM_SELF.getSize() == 1, "self");
        check(MPI.getProcessorName().length() > 0 && MPI.wtime() > 0 && MPI.isInitialized(), "env");
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
