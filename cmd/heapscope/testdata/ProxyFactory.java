// A class factory in Java: each call makes a proxy class (in a class
// loader of its own, so a new class each time, jdk.proxyN.$ProxyM) and
// keeps an instance. It dumps its heap into the directory given as its
// argument after 10 calls (a.hprof) and after 50 more (b.hprof), and
// prints how many it had made at each.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

public class ProxyFactory {
    public interface Service { int call(); }
    static final List<Object> REGISTRY = new ArrayList<>();
    static int made;

    static void make(int n) {
        for (int i = 0; i < n; i++) {
            ClassLoader cl = new ClassLoader(ProxyFactory.class.getClassLoader()) {};
            REGISTRY.add(Proxy.newProxyInstance(cl, new Class<?>[] {Service.class}, (p, m, a) -> 42));
            made++;
        }
    }

    static void dump(String path) throws Exception {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(path, true);
    }

    public static void main(String[] args) throws Exception {
        make(10);
        dump(args[0] + "/a.hprof");
        int a = made;
        make(50);
        dump(args[0] + "/b.hprof");
        System.out.println("{\"a\": " + a + ", \"b\": " + made + "}");
    }
}
