import java.util.ArrayList;
import java.util.List;

/** A service for heapscope run --census --metrics on a JVM: every 200 ms
 * it keeps 50 more sessions (a leak) beside a configuration of 100
 * entries that stays; it runs for the seconds given (60 by default). */
public class PromLeak {
    static final class Session {
        final int id;
        final byte[] body = new byte[200];
        Session(int id) { this.id = id; }
    }

    static final class Config {
        final int key;
        Config(int key) { this.key = key; }
    }

    static final List<Config> CONFIG = new ArrayList<>();
    static final List<Session> SESSIONS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int k = 0; k < 100; k++) CONFIG.add(new Config(k));
        long end = System.nanoTime() + (long) (Double.parseDouble(args.length > 0 ? args[0] : "60") * 1e9);
        int i = 0;
        while (System.nanoTime() < end) {
            for (int n = 0; n < 50; n++) SESSIONS.add(new Session(i++));
            Thread.sleep(200);
        }
    }
}
