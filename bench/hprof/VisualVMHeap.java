import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;

// VisualVMHeap does with VisualVM's heap engine (jfluid-heap, the library
// behind VisualVM's and NetBeans' heap viewers) what bench/hprof/count
// does with heapscope: open a dump, print the class histogram (top 10 by
// shallow bytes), then compute retained sizes (the dominator tree) and
// print the objects that retain most. Prints wall and CPU time per phase.
//
//   java -cp JARS:DIR VisualVMHeap DUMP [histogram]
//
// With "histogram" it stops after the histogram (what heapscope summary
// does).
//
// bench/hprof/run.sh compiles and runs it; tests never do.
public class VisualVMHeap {
    static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static long t0, c0;

    static void start() {
        t0 = System.nanoTime();
        c0 = cpu();
    }

    static String since() {
        return String.format("%.2fs wall, %.2fs cpu", (System.nanoTime() - t0) / 1e9, (cpu() - c0) / 1e9);
    }

    public static void main(String[] args) throws Exception {
        long all = System.nanoTime(), allCpu = cpu();
        start();
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        System.out.println("read: " + since());

        start();
        List<JavaClass> classes = new ArrayList<>(heap.getAllClasses());
        long objects = 0, bytes = 0;
        for (JavaClass c : classes) {
            objects += c.getInstancesCount();
            bytes += c.getAllInstancesSize();
        }
        classes.sort((a, b) -> Long.compare(b.getAllInstancesSize(), a.getAllInstancesSize()));
        for (int i = 0; i < 10 && i < classes.size(); i++) {
            JavaClass c = classes.get(i);
            System.out.printf("%12d %14d  %s%n", c.getInstancesCount(), c.getAllInstancesSize(), c.getName());
        }
        System.out.printf("objects %d, bytes %d, classes %d%n", objects, bytes, classes.size());
        System.out.println("histogram: " + since());
        if (args.length > 1 && args[1].equals("histogram")) {
            System.out.printf("total: %.2fs wall, %.2fs cpu%n", (System.nanoTime() - all) / 1e9, (cpu() - allCpu) / 1e9);
            return;
        }

        // The biggest objects by retained size: this computes the
        // dominator tree and every retained size.
        start();
        for (Instance in : heap.getBiggestObjectsByRetainedSize(5)) {
            System.out.printf("retained %14d  %s @%#x%n", in.getRetainedSize(), in.getJavaClass().getName(), in.getInstanceId());
        }
        System.out.println("dominators: " + since());
        System.out.printf("total: %.2fs wall, %.2fs cpu%n", (System.nanoTime() - all) / 1e9, (cpu() - allCpu) / 1e9);
    }
}
