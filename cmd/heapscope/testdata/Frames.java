import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;

// Frames starts a thread named "holder" whose method hold keeps a Payload
// in a local variable while it sleeps, and dumps the heap into the file
// its argument names: a path to the Payload starts at that thread and
// frame (Frames.hold, at the line of the sleep: HOLD_LINE).
public class Frames {
    static final class Payload {
        final byte[] data = new byte[100];
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch ready = new CountDownLatch(1);
        Thread t = new Thread(() -> hold(ready), "holder");
        t.setDaemon(true);
        t.start();
        ready.await();
        Thread.sleep(100);
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }

    static void hold(CountDownLatch ready) {
        Payload p = new Payload();
        ready.countDown();
        while (p.data.length > 0) {
            try {
                Thread.sleep(10_000); // HOLD_LINE
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
