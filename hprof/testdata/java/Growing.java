import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

// Growing keeps 1,000 more items before each heap dump it writes: java
// Growing.java FILE1 FILE2 ... dumps into each file in turn, so that
// dump k holds k*1,000 items.
public class Growing {
    static final List<Item> ITEMS = new ArrayList<>();

    static final class Item {
        final int n;

        Item(int n) {
            this.n = n;
        }
    }

    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        for (String file : args) {
            for (int i = 0; i < 1000; i++) {
                ITEMS.add(new Item(ITEMS.size()));
            }
            Thread.sleep(20);
            bean.dumpHeap(file, true);
        }
    }
}
