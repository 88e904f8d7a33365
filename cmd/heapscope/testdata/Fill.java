import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.util.*;
import java.util.concurrent.*;

// Fill keeps one of each of the JDK's collections in a static field, each
// with its own known number of entries, dumps the heap into the file its
// argument names, and prints for each field its size() and its capacity
// (the length of its table or array, read by reflection; -1 when it has
// none): the oracle for heapscope containers. Run with --add-opens
// java.base/java.util=ALL-UNNAMED --add-opens
// java.base/java.util.concurrent=ALL-UNNAMED --add-opens
// java.base/java.lang=ALL-UNNAMED.
public class Fill {
    static HashMap<Integer, Integer> hashMap = new HashMap<>();
    static LinkedHashMap<Integer, Integer> linkedHashMap = new LinkedHashMap<>();
    static Properties properties = new Properties();
    static WeakHashMap<Integer, Integer> weakHashMap = new WeakHashMap<>();
    static Hashtable<Integer, Integer> hashtable = new Hashtable<>();
    static IdentityHashMap<Integer, Integer> identityHashMap = new IdentityHashMap<>();
    static TreeMap<Integer, Integer> treeMap = new TreeMap<>();
    static TreeSet<Integer> treeSet = new TreeSet<>();
    static ConcurrentHashMap<Integer, Integer> concurrentHashMap = new ConcurrentHashMap<>();
    static ConcurrentHashMap<Collide, Integer> treeBins = new ConcurrentHashMap<>();
    static HashMap<Collide, Integer> treeNodes = new HashMap<>();
    static ConcurrentSkipListMap<Integer, Integer> skipListMap = new ConcurrentSkipListMap<>();
    static ConcurrentSkipListSet<Integer> skipListSet = new ConcurrentSkipListSet<>();
    static HashSet<Integer> hashSet = new HashSet<>();
    static LinkedHashSet<Integer> linkedHashSet = new LinkedHashSet<>();
    static HashSet<Integer> emptyHashSet = new HashSet<>();
    static ArrayList<Integer> arrayList = new ArrayList<>();
    static Vector<Integer> vector = new Vector<>();
    static ArrayDeque<Integer> arrayDeque = new ArrayDeque<>();
    static LinkedList<Integer> linkedList = new LinkedList<>();
    static PriorityQueue<Integer> priorityQueue = new PriorityQueue<>();
    static CopyOnWriteArrayList<Integer> copyOnWriteArrayList = new CopyOnWriteArrayList<>();
    static CopyOnWriteArraySet<Integer> copyOnWriteArraySet = new CopyOnWriteArraySet<>();
    static ConcurrentLinkedQueue<Integer> concurrentLinkedQueue = new ConcurrentLinkedQueue<>();
    static ConcurrentLinkedDeque<Integer> concurrentLinkedDeque = new ConcurrentLinkedDeque<>();
    static LinkedBlockingQueue<Integer> linkedBlockingQueue = new LinkedBlockingQueue<>();
    static LinkedBlockingDeque<Integer> linkedBlockingDeque = new LinkedBlockingDeque<>();
    static ArrayBlockingQueue<Integer> arrayBlockingQueue = new ArrayBlockingQueue<>(50);
    static PriorityBlockingQueue<Integer> priorityBlockingQueue = new PriorityBlockingQueue<>();
    static LinkedTransferQueue<Integer> linkedTransferQueue = new LinkedTransferQueue<>();
    static Map<Integer, Integer> unmodifiableMap;
    static List<Integer> synchronizedList;
    static Set<Integer> setFromMap = Collections.newSetFromMap(new HashMap<>());
    static List<Integer> singletonList = Collections.singletonList(7);
    static List<Integer> emptyList = Collections.emptyList();
    static List<Integer> listN;
    static Set<Integer> setN;
    static Map<Integer, Integer> mapN;
    static List<Integer> list12 = List.of(1, 2);
    static Object threadLocalMap;
    static final ThreadLocal<String> LOCAL = new ThreadLocal<>();
    static final List<Integer> KEYS = new ArrayList<>(); // keep the weak map's keys alive

    // Keys that all hash alike, so that their bins become trees.
    static final class Collide implements Comparable<Collide> {
        final int n;

        Collide(int n) {
            this.n = n;
        }

        public int hashCode() {
            return 42;
        }

        public boolean equals(Object o) {
            return o instanceof Collide && ((Collide) o).n == n;
        }

        public int compareTo(Collide o) {
            return Integer.compare(n, o.n);
        }
    }

    public static void main(String[] args) throws Exception {
        int n = 11;
        for (Map<Integer, Integer> m : List.<Map<Integer, Integer>>of(hashMap, linkedHashMap, weakHashMap, hashtable, identityHashMap, treeMap, concurrentHashMap, skipListMap)) {
            for (int i = 0; i < n; i++) {
                Integer k = i + 1000; // outside the cache of small Integers
                KEYS.add(k);
                m.put(k, i);
            }
            n++;
        }
        for (int i = 0; i < n; i++) {
            properties.put("k" + i, "v" + i);
        }
        n++;
        for (Collection<Integer> c : List.<Collection<Integer>>of(treeSet, skipListSet, hashSet, linkedHashSet, arrayList, vector, arrayDeque, linkedList,
                priorityQueue, copyOnWriteArrayList, copyOnWriteArraySet, concurrentLinkedQueue, concurrentLinkedDeque, linkedBlockingQueue,
                linkedBlockingDeque, arrayBlockingQueue, priorityBlockingQueue, linkedTransferQueue, setFromMap)) {
            for (int i = 0; i < n; i++) {
                c.add(i);
            }
            n++;
        }
        for (int i = 0; i < 20; i++) {
            treeBins.put(new Collide(i), i);
            treeNodes.put(new Collide(i), i);
        }
        HashMap<Integer, Integer> inner = new HashMap<>();
        for (int i = 0; i < n; i++) {
            inner.put(i, i);
        }
        n++;
        unmodifiableMap = Collections.unmodifiableMap(inner);
        ArrayList<Integer> innerList = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            innerList.add(i);
        }
        n++;
        synchronizedList = Collections.synchronizedList(innerList);
        Integer[] xs = new Integer[n];
        for (int i = 0; i < n; i++) {
            xs[i] = i;
        }
        n++;
        listN = List.of(xs);
        setN = Set.of(xs);
        Map.Entry<Integer, Integer>[] es = new Map.Entry[n];
        for (int i = 0; i < n; i++) {
            es[i] = Map.entry(i, i);
        }
        mapN = Map.ofEntries(es);
        LOCAL.set("here");
        Field tl = Thread.class.getDeclaredField("threadLocals");
        tl.setAccessible(true);
        threadLocalMap = tl.get(Thread.currentThread());

        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);

        for (Field f : Fill.class.getDeclaredFields()) {
            if (f.getName().equals("LOCAL") || f.getName().equals("KEYS")) {
                continue;
            }
            Object v = f.get(null);
            if (v == null || v.getClass().isArray() || v instanceof Collide) {
                continue;
            }
            System.out.println(f.getName() + " " + v.getClass().getName() + " " + size(v) + " " + capacity(v));
        }
    }

    static int size(Object v) throws Exception {
        if (v instanceof Collection) {
            return ((Collection<?>) v).size();
        }
        if (v instanceof Map) {
            return ((Map<?, ?>) v).size();
        }
        Field f = v.getClass().getDeclaredField("size"); // ThreadLocalMap
        f.setAccessible(true);
        return f.getInt(v);
    }

    // capacity is the length of the array the collection keeps its
    // entries in, found down the chain of fields a view or a set wraps
    // (half for the tables of keys and values side by side).
    static int capacity(Object v) throws Exception {
        if (v instanceof Properties) {
            Field f = Properties.class.getDeclaredField("map");
            f.setAccessible(true);
            v = f.get(v);
        }
        for (int depth = 0; depth < 4 && v != null; depth++) {
            Object inner = null;
            for (Class<?> c = v.getClass(); c != null; c = c.getSuperclass()) {
                for (String name : new String[] {"table", "elementData", "elements", "queue", "array", "items", "map", "m", "c", "al"}) {
                    Field f;
                    try {
                        f = c.getDeclaredField(name);
                    } catch (NoSuchFieldException e) {
                        continue;
                    }
                    if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    f.setAccessible(true);
                    Object x = f.get(v);
                    if (x != null && x.getClass().isArray()) {
                        int len = java.lang.reflect.Array.getLength(x);
                        return v instanceof IdentityHashMap || v.getClass().getName().endsWith("MapN") ? len / 2 : len;
                    }
                    if (x == null && name.equals("table")) {
                        return 0;
                    }
                    if (inner == null && x != null && !(v instanceof Properties && !name.equals("map"))) {
                        inner = x;
                    }
                }
            }
            if (v instanceof TreeMap || v instanceof AbstractQueue && !(v instanceof PriorityQueue) || v instanceof LinkedList || v instanceof ConcurrentSkipListMap) {
                return -1;
            }
            v = inner;
        }
        return -1;
    }
}
