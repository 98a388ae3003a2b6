package dev.cosid.mybatisplus.app;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;

/** An entity whose ids MyBatis-Plus assigns (ASSIGN_ID): numbers of the segment counter it is mapped to. */
@TableName("cosid_mp_invoice")
public class Invoice {

    @TableId(type = IdType.ASSIGN_ID)
    private Long id;
    private String label;

    public Invoice() {
    }

    public Invoice(String label) {
        this.label = label;
    }

    public Long getId() {
        return id;
    }

    public void setId(Long id) {
        this.id = id;
    }

    public String getLabel() {
        return label;
    }

    public void setLabel(String label) {
        this.label = label;
    }
}
