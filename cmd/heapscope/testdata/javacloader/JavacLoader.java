import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

// JavacLoader is a script host that compiles each script with the JDK's
// own compiler, in-process (javax.tools), into a class of its own name
// (Gen0, Gen1, ...) defined by a loader of its own, and forgets nothing:
// the script objects stay in KEPT, and each script registers a lambda in
// LISTENERS, whose class (Gen7$$Lambda$...) the script's loader defines.
// Every script class has a static table, T (a JavacLoader$Table). It
// takes a dump after each of three rounds of PER scripts: baseline,
// target and final.
// Usage: java -cp DIR JavacLoader DIR PER.
public class JavacLoader {
    static final List<Object> KEPT = new ArrayList<>();
    public static final List<Runnable> LISTENERS = new ArrayList<>();

    // Table is a script's static table, of a type of the host's so that
    // its count grows only with the scripts.
    public static class Table {
        public long hits;
        final long[] slots = new long[64];
    }

    static class Source extends SimpleJavaFileObject {
        final String code;

        Source(String name, String code) {
            super(URI.create("string:///" + name + ".java"), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignore) {
            return code;
        }
    }

    static class Output extends SimpleJavaFileObject {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Output(String name) {
            super(URI.create("bytes:///" + name + ".class"), Kind.CLASS);
        }

        @Override
        public OutputStream openOutputStream() {
            return bytes;
        }
    }

    static class ScriptLoader extends ClassLoader {
        final Map<String, byte[]> classes;

        ScriptLoader(Map<String, byte[]> classes) {
            super(JavacLoader.class.getClassLoader());
            this.classes = classes;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, b, 0, b.length);
        }
    }

    static int next;

    static void script(JavaCompiler javac, StandardJavaFileManager std) throws Exception {
        String name = "Gen" + next++;
        String code = "public class " + name + " implements Runnable {\n"
                + "  static final JavacLoader.Table T = new JavacLoader.Table();\n"
                + "  public void run() { JavacLoader.LISTENERS.add(() -> T.hits++); }\n"
                + "}\n";
        Map<String, Output> out = new HashMap<>();
        JavaFileManager fm = new ForwardingJavaFileManager<JavaFileManager>(std) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location l, String cls, JavaFileObject.Kind k, FileObject s) {
                Output o = new Output(cls);
                out.put(cls, o);
                return o;
            }
        };
        List<String> opts = List.of("-proc:none", "-classpath", System.getProperty("java.class.path"));
        if (!javac.getTask(null, fm, null, opts, null, List.of(new Source(name, code))).call()) {
            throw new IllegalStateException("javac failed on " + name);
        }
        Map<String, byte[]> classes = new HashMap<>();
        out.forEach((k, v) -> classes.put(k, v.bytes.toByteArray()));
        Runnable r = (Runnable) new ScriptLoader(classes).loadClass(name).getDeclaredConstructor().newInstance();
        r.run();
        KEPT.add(r);
    }

    public static void main(String[] args) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager std = javac.getStandardFileManager(null, null, null);
        int per = Integer.parseInt(args[1]);
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        for (String snap : new String[] {"baseline", "target", "final"}) {
            for (int i = 0; i < per; i++) {
                script(javac, std);
            }
            bean.dumpHeap(args[0] + "/" + snap + ".hprof", true);
        }
    }
}
