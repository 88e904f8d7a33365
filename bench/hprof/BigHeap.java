import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

// BigHeap fills about MB megabytes of heap with a realistic mix (a growing
// static map of sessions with strings and byte arrays, a catalog of
// lists, a bounded LRU cache) and dumps it: java BigHeap MB DUMP.
public class BigHeap {
    static final Map<Long, Session> SESSIONS = new HashMap<>();
    static final List<List<String>> CATALOG = new ArrayList<>();
    static final Map<Integer, int[]> LRU = new LinkedHashMap<>(16, 0.75f, true) {
        protected boolean removeEldestEntry(Map.Entry<Integer, int[]> e) { return size() > 10000; }
    };

    static final class Session {
        final long id;
        final String user;
        final byte[] token;
        final List<String> tags;
        Session(long id) {
            this.id = id;
            this.user = "user-" + id;
            this.token = new byte[64 + (int) (id % 256)];
            this.tags = id % 4 == 0 ? new ArrayList<>(List.of("t" + (id % 100))) : null;
        }
    }

    public static void main(String[] args) throws Exception {
        long target = Long.parseLong(args[0]) << 20;
        Runtime rt = Runtime.getRuntime();
        long id = 0;
        while (true) {
            for (int i = 0; i < 10000; i++, id++) {
                SESSIONS.put(id, new Session(id));
                if (id % 10 == 0) {
                    List<String> l = new ArrayList<>();
                    for (int k = 0; k < 5; k++) l.add("item-" + id + "-" + k);
                    CATALOG.add(l);
                }
                LRU.put((int) id, new int[8]);
            }
            // Garbage counts too; collect only when it looks like enough.
            if (rt.totalMemory() - rt.freeMemory() >= target) {
                System.gc();
                if (rt.totalMemory() - rt.freeMemory() >= target) break;
            }
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[1], true);
        System.out.println("sessions " + SESSIONS.size());
    }
}
