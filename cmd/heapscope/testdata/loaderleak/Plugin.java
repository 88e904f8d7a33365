// Plugin is loaded by a loader of its own (see LoaderLeak).
public class Plugin {
    static final byte[] TABLE = new byte[1 << 20];
    int calls;
}
