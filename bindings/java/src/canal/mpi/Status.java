package canal.mpi;

/** What a completed receive reports: source, tag and size of the message. */
public final class Status {
    public final int source;
    public final int tag;
    /** Bytes received. */
    public final long bytes;

    Status(int source, int tag, long bytes) {
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
    }

    /** Elements of elementBytes bytes received. */
    public int count(int elementBytes) {
        return (int) (bytes / elementBytes);
    }

    @Override
    public String toString() {
        return "Status(source=" + source + ", tag=" + tag + ", bytes=" + bytes + ")";
    }
}
