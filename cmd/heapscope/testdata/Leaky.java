// A Java program with two planted leaks among a bounded LRU cache,
// warm-up allocations and churn. It dumps its heap three times into the
// directory given as its argument: after a warm-up (baseline), after more
// work (target), and after as much again (final).
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class Leaky {
    static final class Session {
        final int id;
        final String user;
        final byte[] token = new byte[64];
        Session(int id) { this.id = id; this.user = "user-" + id; }
    }

    static final class Entry {
        final int key;
        final long[] values = new long[8];
        Entry(int key) { this.key = key; }
    }

    static final class LRU<K, V> extends LinkedHashMap<K, V> {
        final int limit;
        LRU(int limit) { super(16, 0.75f, true); this.limit = limit; }
        @Override protected boolean removeEldestEntry(Map.Entry<K, V> e) { return size() > limit; }
    }

    static final Map<Integer, Session> sessions = new HashMap<>();   // leak 1
    static final List<Runnable> listeners = new ArrayList<>();       // leak 2
    static final LRU<Integer, Entry> cache = new LRU<>(50);          // bounded
    static Object[] warm;                                            // filled once

    static int handle(int i) {
        sessions.put(i, new Session(i));
        final int n = i;
        listeners.add(() -> System.out.print(n == -1 ? "" : ""));
        cache.put(i, new Entry(i));
        List<String> junk = new ArrayList<>();                       // churn
        for (int j = 0; j < 20; j++) junk.add("tmp" + j + i);
        return junk.size();
    }

    static void dump(String dir, String name) throws Exception {
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(dir + "/" + name, true);
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        for (int i = 0; i < 300; i++) handle(i);
        warm = new Object[100];
        for (int i = 0; i < warm.length; i++) warm[i] = new int[4];
        dump(dir, "baseline.hprof");
        for (int i = 300; i < 600; i++) handle(i);
        dump(dir, "target.hprof");
        for (int i = 600; i < 900; i++) handle(i);
        dump(dir, "final.hprof");
    }
}
