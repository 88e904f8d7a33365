import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.management.MBeanServer;
import javax.management.ObjectName;

// PlantedLeak grows a static HashMap of sessions (the planted leak), a
// bounded LRU cache and some churn, dumps its heap, then clears the map
// and prints the class histogram's total bytes before and after:
//
//   java PlantedLeak DUMP N
//
// prints "before BYTES" and "after BYTES". The histogram (DiagnosticCommand
// gcClassHistogram) runs a full GC first, so its total is the live heap.
public class PlantedLeak {
    static final class LeakedSession {
        final String name;
        final byte[] payload;

        LeakedSession(int i) {
            name = "session-" + i;
            payload = new byte[1024];
        }
    }

    static final Map<Integer, LeakedSession> sessions = new HashMap<>();
    static final Map<Integer, int[]> lru = new LinkedHashMap<>(16, 0.75f, true) {
        protected boolean removeEldestEntry(Map.Entry<Integer, int[]> e) {
            return size() > 1000;
        }
    };
    static Object sink;

    // histogramTotal returns the total bytes of GC.class_histogram.
    static long histogramTotal() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName dcmd = new ObjectName("com.sun.management:type=DiagnosticCommand");
        String h = (String) server.invoke(dcmd, "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        for (String line : h.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[0].equals("Total")) {
                return Long.parseLong(f[2]);
            }
        }
        throw new IllegalStateException("no Total line in the histogram");
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        HotSpotDiagnosticMXBean diag = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        histogramTotal(); // load the machinery the histograms below use
        Random rnd = new Random(1);
        for (int i = 0; i < n; i++) {
            sessions.put(i, new LeakedSession(i));
            lru.put(i, new int[64]);
            StringBuilder sb = new StringBuilder(); // churn
            for (int k = 0; k < 8; k++) {
                sb.append(rnd.nextInt());
            }
            sink = sb.toString();
            List<Integer> l = new ArrayList<>();
            l.add(i);
            sink = l;
        }
        sink = null;
        diag.dumpHeap(args[0], true);
        long before = histogramTotal();
        sessions.clear();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
        long after = histogramTotal();
        System.out.println("before " + before);
        System.out.println("after " + after);
    }
}
