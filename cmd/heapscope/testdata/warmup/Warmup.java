// A Java program with two leaks planted in static arrays, beside code
// that first runs between the baseline and the target dump: its string
// concatenations, lambdas, reflective calls and formatting link call
// sites and fill the JDK's caches once. It handles requests in three
// rounds of 300 and dumps its heap after each into the directory given
// as its argument (baseline, target, final). Every request's session is
// kept in KEPT, and a token in the pages of PAGES (100 to a page): 600
// of each grown between baseline and final, 900 in final. SPARE holds 64
// buffers (65 objects with their array) only through a soft reference.

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.SoftReference;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

public class Warmup {
    static final class Session {
        final String id;
        final byte[] data = new byte[512];

        Session(String id) {
            this.id = id;
        }
    }

    static final class Token {
        final long value;

        Token(long value) {
            this.value = value;
        }
    }

    static final Session[] KEPT = new Session[1024];
    static final Token[][] PAGES = new Token[16][];
    static final SoftReference<byte[][]> SPARE = new SoftReference<>(new byte[64][256]);
    static int kept;

    public int size() {
        return kept;
    }

    static String handle(int i) {
        Session s = new Session("s" + i);
        if (kept % 100 == 0) {
            PAGES[kept / 100] = new Token[100];
        }
        PAGES[kept / 100][kept % 100] = new Token(i * 31L);
        KEPT[kept++] = s;
        return s.id;
    }

    static String later(int i) throws Exception {
        long l = i * 3L;
        char c = (char) ('a' + i % 26);
        double d = i / 7.0;
        Function<String, String> f = x -> x + l + c;
        Supplier<String> g = () -> "d=" + d + ':' + l + c;
        Method m = Warmup.class.getMethod("size");
        Object n = m.invoke(new Warmup());
        List<Object> out = new ArrayList<>();
        out.add(f.apply("x" + d + c + n));
        out.add(g.get());
        out.add(String.format("%d-%s", i, c));
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean mx = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        String[] names = {"baseline", "target", "final"};
        int n = 0;
        int sum = 0;
        for (int r = 0; r < names.length; r++) {
            for (int i = 0; i < 300; i++, n++) {
                sum += handle(n).length();
                if (r > 0) {
                    sum += later(n).length();
                }
            }
            mx.dumpHeap(args[0] + "/" + names[r] + ".hprof", true);
        }
        System.out.println(sum);
    }
}
