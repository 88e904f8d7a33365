// Dumps the heap of this JVM into each file given, in turn, more than a
// second apart, so that the dumps' header times (read to the second)
// tell their order.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class Dumps {
    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        for (int i = 0; i < args.length; i++) {
            if (i > 0) {
                Thread.sleep(1100);
            }
            bean.dumpHeap(args[i], true);
        }
    }
}
