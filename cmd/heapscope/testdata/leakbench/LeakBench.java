// A Java program with a leak planted in a static field of a class in a
// package, among a bounded cache, a registry filled once and churn. It
// handles requests in three rounds of 323 and dumps its heap after each
// into the directory given as its argument (baseline, target, final):
// SessionCache.CACHE keeps every request's context, 646 of them grown
// between baseline and final, 969 in final.
package leakbench;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

final class RequestContext {
    final String id;
    final String user;
    final byte[] body = new byte[2048];

    RequestContext(int i) {
        id = "req-" + i;
        user = "user-" + (i % 17);
    }
}

final class SessionCache {
    // The leak: contexts are put in and never taken out.
    static final Map<String, RequestContext> CACHE = new HashMap<>();
}

final class Recent {
    // Bounded: keeps the last 32 bodies.
    static final Map<Integer, byte[]> LAST = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, byte[]> e) {
            return size() > 32;
        }
    };
}

public class LeakBench {
    static final List<String> ROUTES = new ArrayList<>(); // filled once

    static int handle(int i) {
        RequestContext ctx = new RequestContext(i);
        SessionCache.CACHE.put(ctx.id, ctx);
        Recent.LAST.put(i, new byte[256]);
        StringBuilder sb = new StringBuilder(); // churn
        for (int k = 0; k < 10; k++) {
            sb.append(k).append(ctx.user);
        }
        return sb.length();
    }

    static void dump(String dir, String name) throws Exception {
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(dir + "/" + name, true);
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        for (int r = 0; r < 50; r++) {
            ROUTES.add("/route/" + r);
        }
        String[] names = {"baseline.hprof", "target.hprof", "final.hprof"};
        int n = 0;
        for (String name : names) {
            for (int i = 0; i < 323; i++) {
                handle(n++);
            }
            dump(dir, name);
        }
    }
}
