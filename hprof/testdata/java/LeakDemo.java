import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import javax.management.MBeanServer;
import javax.management.ObjectName;

// LeakDemo builds a known heap, then writes a class histogram and a heap
// dump of it: java LeakDemo DUMP HISTOGRAM N [wait]. With "wait" it
// prints "ready" and waits for a line on stdin instead, so that jcmd can
// take both from outside.
public class LeakDemo {
    static final Map<Integer, Session> SESSIONS = new HashMap<>();
    static final List<String> NAMES = new ArrayList<>();
    static final Map<Object, String> CACHE = new WeakHashMap<>();
    static WeakReference<Session> weak;
    static long[][] matrix = new long[3][5];
    static String[][] grid = {{"a", "b"}, {"c"}};
    static Object keepKey;
    // One byte field at each of three levels: 16 bytes under JDK 15+'s
    // field layout, 24 where each class starts on a fresh reference-size
    // boundary (-XX:-UseEmptySlotsInSupers, and every JVM before 15).
    static Level3[] levels = new Level3[100];

    static class Level1 { byte a; }
    static class Level2 extends Level1 { byte b; }
    static class Level3 extends Level2 { byte c; long d; }

    static final class Session {
        final int id;
        final String user;
        final byte[] payload;
        Session next;

        Session(int id, String user, byte[] payload) {
            this.id = id;
            this.user = user;
            this.payload = payload;
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[2]);
        for (int i = 0; i < n; i++) {
            SESSIONS.put(i, new Session(i, "user-" + i, new byte[16 + i % 32]));
        }
        NAMES.add("h\u00e9llo w\u00f6rld");              // Latin-1
        NAMES.add("\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8"); // UTF-16
        NAMES.add("emoji \ud83d\ude00 end");
        NAMES.add(new String("duplicate-me"));
        NAMES.add(new String("duplicate-me"));
        weak = new WeakReference<>(new Session(-1, "only-weak", new byte[1000]));
        keepKey = new Object();
        for (int i = 0; i < levels.length; i++) {
            levels[i] = new Level3();
        }
        CACHE.put(keepKey, "cached");
        if (args.length > 3 && args[3].equals("wait")) {
            System.out.println("ready");
            System.out.flush();
            System.in.read();
            System.out.println(SESSIONS.size() + NAMES.size());
            return;
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        HotSpotDiagnosticMXBean diag = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        ObjectName dcmd = new ObjectName("com.sun.management:type=DiagnosticCommand");
        // Twice: the first round warms up everything the calls allocate
        // and keep, so that the second histogram and dump see one heap.
        for (int round = 0; round < 2; round++) {
            if (round == 1) {
                // Let the cleaner thread finish with what the first round
                // left phantom-reachable (method handle call sites), or
                // it may do so between the histogram and the dump.
                for (int i = 0; i < 3; i++) {
                    System.gc();
                    Thread.sleep(50);
                }
            }
            String suffix = round == 0 ? ".warm.hprof" : "";
            histogram(server, dcmd, args[1] + suffix);
            new java.io.File(args[0] + suffix).delete();
            diag.dumpHeap(args[0] + suffix, true);
        }
        new java.io.File(args[0] + ".warm.hprof").delete();
        new java.io.File(args[1] + ".warm.hprof").delete();
    }

    static void histogram(MBeanServer server, ObjectName dcmd, String path) throws Exception {
        String h = (String) server.invoke(dcmd, "gcClassHistogram",
            new Object[] {new String[0]}, new String[] {String[].class.getName()});
        try (Writer w = new OutputStreamWriter(new FileOutputStream(path), StandardCharsets.UTF_8)) {
            w.write(h);
        }
    }
}
