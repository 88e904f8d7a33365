// StructCache: a small compiler that lowers records to struct types and
// keeps them in a table declared up front, keyed by the record's
// identity (an IdentityHashMap). Its code generator passes defensive
// copies of the records, so every lookup misses and the compiler builds
// the same StructType again for every function: 15 records, 588
// functions in three rounds of 196, a heap dump after each round; 15
// struct types in the table, 588 more in the functions. It prints what
// Java's own equality says of them (StructType.equals compares the
// element types) as JSON.
package structcache;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

final class Kind {
    final String name;
    Kind(String name) { this.name = name; }
}

final class Rec {
    final String name;
    final String[] kinds;
    final String packing;
    Rec(String name, String[] kinds, String packing) { this.name = name; this.kinds = kinds; this.packing = packing; }
    Rec copy() { return new Rec(name, kinds.clone(), packing); }
}

final class StructType {
    final Kind[] elements;
    final String packing;
    StructType(Kind[] elements, String packing) { this.elements = elements; this.packing = packing; }
    @Override public boolean equals(Object o) {
        return o instanceof StructType && Arrays.equals(elements, ((StructType) o).elements) && packing.equals(((StructType) o).packing);
    }
    @Override public int hashCode() { return Arrays.hashCode(elements) * 31 + packing.hashCode(); }
}

final class Function {
    final String name;
    final StructType arg;
    Function(String name, StructType arg) { this.name = name; this.arg = arg; }
}

final class Context {
    final Map<Rec, StructType> declared = new IdentityHashMap<>();
    static final Map<String, Kind> KINDS = new java.util.HashMap<>();
    static {
        for (String k : new String[] {"i8", "i32", "i64", "f32", "f64"}) KINDS.put(k, new Kind(k));
    }

    void declare(Rec r) { declared.put(r, build(r)); }

    StructType structType(Rec r) {
        StructType t = declared.get(r);
        return t != null ? t : build(r); // a copy of a declared record misses
    }

    StructType build(Rec r) {
        Kind[] el = new Kind[r.kinds.length];
        for (int i = 0; i < el.length; i++) el[i] = KINDS.get(r.kinds[i]);
        return new StructType(el, r.packing);
    }
}

public final class StructCache {
    static final Context CTX = new Context();
    static final List<Function> MODULE = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        String[] kinds = {"i8", "i32", "i64", "f32", "f64"};
        List<Rec> recs = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            String[] ks = new String[2 + i % 4];
            for (int j = 0; j < ks.length; j++) ks[j] = kinds[(i + j) % kinds.length];
            Rec r = new Rec("R" + i, ks, new String[] {"natural", "packed", "aligned"}[i / 5]);
            recs.add(r);
            CTX.declare(r);
        }
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        String[] names = {"baseline.hprof", "target.hprof", "final.hprof"};
        int k = 0;
        for (String name : names) {
            for (int n = 0; n < 196; n++, k++) {
                Rec r = recs.get(k % recs.size()).copy();
                MODULE.add(new Function("fn" + k, CTX.structType(r)));
            }
            bean.dumpHeap(args[0] + "/" + name, true);
        }
        Set<StructType> distinct = new HashSet<>();
        for (Function f : MODULE) distinct.add(f.arg);
        distinct.addAll(CTX.declared.values());
        System.out.printf("{\"structs\": %d, \"distinct\": %d, \"cached\": %d}%n", MODULE.size(), distinct.size(), CTX.declared.size());
    }
}
