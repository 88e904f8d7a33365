import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

// LoaderLeak is the class loader leak of a server that redeploys a
// plugin: a plugin's class is loaded by a loader of its own, one of its
// objects is registered with the host, and the host forgets the loader
// but not the object. The object keeps its class alive, the class its
// loader, and the loader every class it loaded with their statics: here
// Plugin.TABLE, one MiB. Usage: java LoaderLeak PLUGIN_CLASSES_DIR DUMP.
public class LoaderLeak {
    static final List<Object> REGISTRY = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        URLClassLoader loader = new URLClassLoader(new URL[] {new java.io.File(args[0]).toURI().toURL()}, LoaderLeak.class.getClassLoader());
        Class<?> plugin = loader.loadClass("Plugin");
        REGISTRY.add(plugin.getDeclaredConstructor().newInstance());
        loader.close();
        loader = null;
        plugin = null;
        System.gc();
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[1], true);
    }
}
